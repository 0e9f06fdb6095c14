"""The terminal says what a correction changed and how a run ended, in words, through the real ``tandem run``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TASK = "restart payments and check errors after"


def tandem(tmp_path: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "TANDEM_"))}
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args],
        cwd=ROOT,
        env={**env, "TANDEM_DB": str(tmp_path / "t.db"), "NO_COLOR": "1"},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_terminal_value_correction_says_old_and_new_value_not_a_guess(tmp_path: Path) -> None:
    proc = tandem(tmp_path, "run", TASK, stdin="use level warning instead of error\n")
    assert "Read as: retry step 2\n" in proc.stdout, proc.stdout
    assert "Note: Step 2 changed: read_logs level error → warning." in proc.stdout


def test_terminal_cancel_ends_with_one_line_naming_who_cancelled(tmp_path: Path) -> None:
    proc = tandem(tmp_path, "run", TASK, "--as", "alice", stdin="c\ny\n")
    ended = proc.stdout.split("── Run ", 1)[1]
    assert "🛑 Cancelled by @alice." in ended and ended.count("Cancelled") == 1, ended
