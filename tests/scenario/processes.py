"""The bot as a real OS process against the local workspace, for tests that kill it."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from tests.agent.waiting import eventually
from workspace import Workspace
from workspace.feishu_fake import APP_ID, APP_SECRET, ENCRYPT_KEY, VERIFICATION_TOKEN, FeishuFake
from workspace.socket_mode import APP_TOKEN

ROOT = Path(__file__).resolve().parents[2]


@asynccontextmanager
async def bot_process(
    ws: Workspace, db: Path | str, port: int = 0, **more: str
) -> AsyncIterator[asyncio.subprocess.Process]:
    """``tandem serve`` on ``port`` (0: a free one), pointed at ``ws`` (``more``: extra environment); killed on exit.
    ``db`` is TANDEM_DB: a SQLite file, or a PostgreSQL URL that several bots can share."""
    env = {
        "TANDEM_TOOLS": "demo.tools",  # serve refuses to fall back to the demo on its own
        **more,
        **os.environ,
        "SLACK_BOT_TOKEN": ws.bot_token,
        "SLACK_SIGNING_SECRET": ws.signing_secret,
        "SLACK_API_URL": ws.api_url,
        **_core(db),
    }
    async with _listening(env, port) as (proc, url):
        ws.events_url = url
        yield proc


@asynccontextmanager
async def feishu_process(fake: FeishuFake, db: Path | str, **more: str) -> AsyncIterator[asyncio.subprocess.Process]:
    """Feishu alone (no Slack settings) served to ``fake`` the way it sends (``fake.transport``): ``tandem serve``
    on a free port (``fake.events_url`` then points at it), or ``tandem feishu-ws`` over the long connection
    (yields once the fake counts one more connection). ``more``: extra environment. Killed on exit."""
    inherited = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "FEISHU_", "TANDEM_"))}
    env = {
        **inherited,
        "TANDEM_TOOLS": "demo.tools",
        **more,
        "FEISHU_APP_ID": APP_ID,
        "FEISHU_APP_SECRET": APP_SECRET,
        "FEISHU_VERIFICATION_TOKEN": VERIFICATION_TOKEN,
        "FEISHU_ENCRYPT_KEY": ENCRYPT_KEY,
        "FEISHU_API_URL": fake.api_url,
        **_core(db),
    }
    if fake.transport == "webhook":
        async with _listening(env) as (proc, url):
            fake.events_url = url
            yield proc
        return
    before = fake.connections
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "cli.main", "feishu-ws", cwd=ROOT, env=env)
    async with _killed_on_exit(proc):
        await eventually(lambda: fake.connections > before, "the long connection", limit=60)
        yield proc


def _core(db: Path | str) -> dict[str, str]:
    """The database, the offline model, and log lines as they are written."""
    return {"TANDEM_DB": str(db), "TANDEM_MODEL": "offline", "PYTHONUNBUFFERED": "1"}


@asynccontextmanager
async def _listening(env: dict[str, str], port: int = 0) -> AsyncIterator[tuple[asyncio.subprocess.Process, str]]:
    """``tandem serve`` on ``port`` (0: a free one) with ``env``, once it listens: the process and its first URL;
    killed on exit."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "cli.main",
        "serve",
        "--port",
        str(port),
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.PIPE,
    )
    assert proc.stdout is not None
    async with _killed_on_exit(proc):
        while "listening on" not in (line := (await asyncio.wait_for(proc.stdout.readline(), 30)).decode()):
            assert line, "the bot exited before it listened"
        yield proc, line.split("listening on ")[1].split()[0]


@asynccontextmanager
async def _killed_on_exit(proc: asyncio.subprocess.Process) -> AsyncIterator[None]:
    try:
        yield
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGKILL)
        await proc.wait()


@asynccontextmanager
async def socket_process(ws: Workspace, db: Path | str, **more: str) -> AsyncIterator[asyncio.subprocess.Process]:
    """``tandem socket`` connected to ``ws`` in Socket Mode (``more``: extra environment); killed on exit.
    Yields once the workspace counts one more open connection."""
    assert ws.socket is not None
    before = ws.socket.opened
    env = {
        "TANDEM_TOOLS": "demo.tools",
        **more,
        **os.environ,
        "SLACK_BOT_TOKEN": ws.bot_token,
        "SLACK_SIGNING_SECRET": ws.signing_secret,
        "SLACK_APP_TOKEN": APP_TOKEN,
        "SLACK_API_URL": ws.api_url,
        **_core(db),
    }
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "cli.main", "socket", cwd=ROOT, env=env)
    async with _killed_on_exit(proc):
        await ws.wait_until(lambda _s: ws.socket is not None and ws.socket.opened > before, within=30)
        yield proc
