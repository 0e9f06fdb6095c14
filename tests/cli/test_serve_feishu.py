"""``tandem serve`` with Feishu settings, Slack settings or both: one server, the right routes, secrets named."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

from workspace.feishu_fake import ENCRYPT_KEY, VERIFICATION_TOKEN, envelope

ROOT = Path(__file__).resolve().parents[2]
FEISHU = {
    "FEISHU_APP_ID": "cli_x",
    "FEISHU_APP_SECRET": "s",
    "FEISHU_VERIFICATION_TOKEN": VERIFICATION_TOKEN,
    "FEISHU_ENCRYPT_KEY": ENCRYPT_KEY,
    "FEISHU_API_URL": "http://127.0.0.1:9",  # nothing is called before a request comes in
}


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "TANDEM_", "FEISHU_"))}
    return {**env, "TANDEM_DB": str(tmp_path / "t.db"), **extra}


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        ({"FEISHU_APP_ID": "cli_x"}, "FEISHU_APP_SECRET, FEISHU_VERIFICATION_TOKEN, FEISHU_ENCRYPT_KEY"),
        ({**FEISHU, "FEISHU_ENCRYPT_KEY": " "}, "FEISHU_ENCRYPT_KEY"),
    ],
)
def test_serve_feishu_missing_setting_fails_at_start_naming_it(
    tmp_path: Path, extra: dict[str, str], named: str
) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "cli.main", "serve", "--demo", "--port", "0"],
        cwd=ROOT,
        env=_env(tmp_path, **extra),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1 and f"Missing {named}" in proc.stderr


@pytest.mark.parametrize("with_slack", [False, True])
async def test_serve_starts_with_feishu_alone_or_beside_slack(tmp_path: Path, with_slack: bool) -> None:
    slack = {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "s"} if with_slack else {}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "cli.main",
        "serve",
        "--demo",
        "--port",
        "0",
        cwd=ROOT,
        env=_env(tmp_path, **FEISHU, **slack),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        assert proc.stdout is not None
        line = ""
        async with asyncio.timeout(60):
            while "listening" not in line:
                line = (await proc.stdout.readline()).decode()
                assert line, "the server exited before listening"
        url = re.search(r"(http://127\.0\.0\.1:\d+)/", line)
        assert url and "/feishu/events" in line and ("/slack/events" in line) == with_slack
        body = envelope({"type": "url_verification", "challenge": "c-1", "token": VERIFICATION_TOKEN}, ENCRYPT_KEY)
        async with aiohttp.ClientSession() as session:
            async with session.post(f"{url.group(1)}/feishu/events", data=body) as resp:
                assert resp.status == 200 and await resp.json() == {"challenge": "c-1"}
            async with session.get(f"{url.group(1)}/healthz") as resp:
                assert resp.status == 200
            async with session.post(f"{url.group(1)}/slack/events", data=b"{}") as resp:
                assert (resp.status == 404) != with_slack
    finally:
        proc.terminate()
        await proc.wait()
