"""The README's commands are real."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"```bash\n(.*?)```", README, re.S)


def test_readme_gives_exactly_two_setup_commands() -> None:
    first, second = BLOCKS[0].strip(), BLOCKS[1].strip()
    assert first.startswith("python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/tandem ")
    assert second.startswith("python3 -m venv .venv && .venv/bin/pip install -e '.[dev]' && ")


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    test_command = BLOCKS[1].strip().replace(".venv/bin/pip install -e", ".venv/bin/pip install -q -e")
    assert test_command in ci


def test_readme_main_command_is_tandem_dev() -> None:
    # tests/workspace/test_dev.py runs the real `tandem dev` process: URL printed, page served, clean stop.
    assert BLOCKS[0].strip().split(" && ")[-1] == ".venv/bin/tandem dev"


def test_readme_terminal_command_runs_a_demo_task_to_done(tmp_path: Path) -> None:
    match = re.search(r'`\.venv/bin/tandem run "(.+?)"`', README)
    assert match, "the README shows the terminal channel"
    env = {**os.environ, "TANDEM_DB": str(tmp_path / "t.db")}
    proc = subprocess.run(
        [sys.executable, "-m", "cli.main", "run", match.group(1)],
        cwd=ROOT,
        env=env,
        input="a\n" * 8,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert ": done ──" in proc.stdout
    assert "error rate 18.4% → 0.20%" in proc.stdout
