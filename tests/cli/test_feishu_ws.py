"""``tandem feishu-ws``: the Feishu bot over the long connection, as a real process against the local fake."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from aiohttp import web

from workspace.feishu_fake import APP_ID, APP_SECRET, run_feishu
from workspace.server import serve

ROOT = Path(__file__).resolve().parents[2]


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "TANDEM_", "FEISHU_"))}
    return {**env, "TANDEM_DB": str(tmp_path / "t.db"), "TANDEM_MODEL": "offline", **extra}


def test_feishu_ws_needs_only_the_app_id_and_secret_and_names_what_is_missing(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "cli.main", "feishu-ws", "--demo"],
        cwd=ROOT,
        env=_env(tmp_path, FEISHU_APP_ID="cli_x"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1 and "Missing FEISHU_APP_SECRET:" in proc.stderr
    assert "VERIFICATION_TOKEN" not in proc.stderr and "ENCRYPT_KEY" not in proc.stderr


async def _until(predicate: Callable[[], object], within: float = 30.0) -> None:
    deadline = time.monotonic() + within
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"nothing came within {within} s")
        await asyncio.sleep(0.05)


async def _start(tmp_path: Path, api_url: str, secret: str) -> asyncio.subprocess.Process:
    env = _env(tmp_path, FEISHU_APP_ID=APP_ID, FEISHU_APP_SECRET=secret, FEISHU_API_URL=api_url)
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "cli.main",
        "feishu-ws",
        "--demo",
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def test_feishu_ws_process_connects_and_starts_a_run_from_a_mention(tmp_path: Path) -> None:
    async with run_feishu(transport="ws") as fake:
        proc = await _start(tmp_path, fake.api_url, APP_SECRET)
        try:
            await fake.connected(within=60)
            answer = await fake.say("alice", "oc_ops", "restart payments and check errors after")
            assert answer.status == 200
            await _until(lambda: fake.roots("oc_ops"))
            assert fake.connections == 1
        finally:
            proc.terminate()
            await proc.wait()


async def test_feishu_ws_wrong_secret_exits_with_the_reason(tmp_path: Path) -> None:
    async with run_feishu(transport="ws") as fake:
        proc = await _start(tmp_path, fake.api_url, "wrong-secret")
        _, err = await asyncio.wait_for(proc.communicate(), 90)
    assert proc.returncode == 1, err.decode()
    assert "long connection failed" in err.decode() and "app id or secret invalid" in err.decode()
    assert fake.connections == 0


async def test_socket_with_feishu_settings_runs_the_long_connection_beside_slack(tmp_path: Path) -> None:
    hold = asyncio.Event()

    async def slack_never_answers(request: web.Request) -> web.Response:
        await hold.wait()
        return web.json_response({"ok": False, "error": "stopped"})

    slack_app = web.Application()
    slack_app.router.add_route("*", "/{tail:.*}", slack_never_answers)
    async with serve(slack_app) as slack_url, run_feishu(transport="ws") as fake:
        env = _env(
            tmp_path,
            SLACK_BOT_TOKEN="xoxb-1",
            SLACK_SIGNING_SECRET="s",
            SLACK_APP_TOKEN="xapp-1",
            SLACK_API_URL=f"{slack_url}/api/",
            FEISHU_APP_ID=APP_ID,
            FEISHU_APP_SECRET=APP_SECRET,
            FEISHU_API_URL=fake.api_url,
        )
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "cli.main", "socket", "--demo", cwd=ROOT, env=env, stdout=asyncio.subprocess.PIPE
        )
        try:
            await fake.connected(within=60)
            await fake.say("alice", "oc_ops", "restart payments and check errors after")
            await _until(lambda: fake.roots("oc_ops"))
        finally:
            hold.set()
            proc.terminate()
            await proc.wait()
