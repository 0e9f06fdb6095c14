"""``tandem serve`` with ``TANDEM_SMTP_URL`` set but not what mail needs beside it stops at start, naming it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_serve_with_an_smtp_url_and_no_mail_secret_stops_at_start_naming_what_is_missing(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "TANDEM_"))}
    env |= {
        "TANDEM_DB": str(tmp_path / "t.db"),
        "TANDEM_TOOLS": "demo.tools",
        "SLACK_BOT_TOKEN": "xoxb-1",
        "SLACK_SIGNING_SECRET": "s",
        "TANDEM_SMTP_URL": "smtp://127.0.0.1:1",
        "TANDEM_MAIL_FROM": "Tandem <no-reply@example.com>",
        "TANDEM_PUBLIC_URL": "https://tandem.example.com",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "cli.main", "serve", "--port", "0"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert proc.returncode != 0
    assert "TANDEM_SMTP_URL is set, so mail needs TANDEM_MAIL_SECRET too" in proc.stderr
    assert "listening on" not in proc.stdout
