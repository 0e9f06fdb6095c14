"""The bot as a real OS process against the local workspace, for tests that kill it."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from workspace import Workspace
from workspace.socket_mode import APP_TOKEN

ROOT = Path(__file__).resolve().parents[2]


@asynccontextmanager
async def bot_process(ws: Workspace, db: Path | str, **more: str) -> AsyncIterator[asyncio.subprocess.Process]:
    """``tandem serve`` on a free port, pointed at ``ws`` (``more``: extra environment); killed on exit.
    ``db`` is TANDEM_DB: a SQLite file, or a PostgreSQL URL that several bots can share."""
    env = {
        "TANDEM_TOOLS": "demo.tools",  # serve refuses to fall back to the demo on its own
        **more,
        **os.environ,
        "SLACK_BOT_TOKEN": ws.bot_token,
        "SLACK_SIGNING_SECRET": ws.signing_secret,
        "SLACK_API_URL": ws.api_url,
        "TANDEM_DB": str(db),
        "TANDEM_MODEL": "offline",
        "PYTHONUNBUFFERED": "1",
    }
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "cli.main", "serve", "--port", "0", cwd=ROOT, env=env, stdout=asyncio.subprocess.PIPE
    )
    assert proc.stdout is not None
    while "listening on" not in (line := (await asyncio.wait_for(proc.stdout.readline(), 30)).decode()):
        assert line, "the bot exited before it listened"
    ws.events_url = line.split("listening on ")[1].split()[0]
    try:
        yield proc
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
        "TANDEM_DB": str(db),
        "TANDEM_MODEL": "offline",
        "PYTHONUNBUFFERED": "1",
    }
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "cli.main", "socket", cwd=ROOT, env=env)
    try:
        await ws.wait_until(lambda _s: ws.socket is not None and ws.socket.opened > before, within=30)
        yield proc
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGKILL)
        await proc.wait()
