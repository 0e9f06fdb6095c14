"""The terminal shows a review's evidence: the logs at the restart gate, and all of them in ``tandem show``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TASK = "read the payments logs, then restart payments"
# the requester may approve the restart, so approving the plan would approve it too: the gate is kept apart
GATE_APART = "[anchors]\nmerge_gate = false\n"


def tandem(tmp_path: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "TANDEM_", "NO_COLOR"))}
    policy = tmp_path / "tandem.toml"
    policy.write_text(GATE_APART)
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args],
        cwd=ROOT,
        env={**env, "TANDEM_DB": str(tmp_path / "t.db"), "TANDEM_CONFIG": str(policy)},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_terminal_gate_shows_log_lines_then_show_prints_them_all(tmp_path: Path) -> None:
    proc = tandem(tmp_path, "run", TASK, stdin="a\n")  # approve the plan; end of input pauses at the gate

    gate = proc.stdout.split("── Approval needed", 1)[1]
    assert "Since the last review (1 step ran):" in gate
    assert "✓ 1. read_logs  service=payments" in gate
    assert "  params: service=payments" in gate and '{"service"' not in gate
    more = re.search(r"… (\d+) more lines · tandem show (\w+) prints them all", gate)
    assert more is not None, gate
    shown_at_gate = output_lines(gate)

    full = output_lines(tandem(tmp_path, "show", more.group(2)).stdout)
    assert len(full) == len(shown_at_gate) + int(more.group(1))
    assert full[: len(shown_at_gate)] == shown_at_gate


def output_lines(text: str) -> list[str]:
    """The step output lines printed under "Since the last review" (indented six spaces)."""
    after = text.split("Since the last review", 1)[1].splitlines()[2:]
    lines = []
    for line in after:
        if not line.startswith("      ") or line.startswith("      … "):
            break
        lines.append(line)
    return lines
