"""``tandem`` as a fresh process in a folder of the test's, with no Slack or Tandem setting of the
environment it runs in (so a developer's own never leaks into a test)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def tandem_in(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "TANDEM_"))}
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args],
        cwd=cwd,
        env={**env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )


def tandem_ok(cwd: Path, *args: str) -> str:
    """``tandem`` as :func:`tandem_in` runs it, which must exit 0; its standard output."""
    proc = tandem_in(cwd, *args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout
