"""Running the workspace (or any aiohttp app) on an ephemeral local port, with or without its browser page.

async with run_workspace() as ws:
    client = AsyncWebClient(token=ws.bot_token, base_url=ws.api_url)
    async with serve(bolt_app.web_app(path="/slack/events")) as bot_url:
        ws.events_url = f"{bot_url}/slack/events"
        await ws.slash_command("alice", "#ops", "deploy web")
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager

import aiohttp
from aiohttp import web

from workspace.api import build_api
from workspace.people import Workspace
from workspace.socket_mode import SocketHub
from workspace.state import WorkspaceState
from workspace.transport import ACK_TIMEOUT
from workspace.web import add_ui

BOT_TOKEN = "xoxb-tandem-local"
SIGNING_SECRET = "tandem-local-signing-secret"


@asynccontextmanager
async def serve(app: web.Application, *, host: str = "127.0.0.1", port: int = 0) -> AsyncIterator[str]:
    """Serve ``app`` until the block ends; yields its base URL (``http://127.0.0.1:PORT``)."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        await site.start()
        bound_host, bound_port = runner.addresses[0][:2]
        yield f"http://{bound_host}:{bound_port}"
    finally:
        await runner.cleanup()


@asynccontextmanager
async def run_workspace(
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    bot_token: str = BOT_TOKEN,
    signing_secret: str = SIGNING_SECRET,
    events_url: str | None = None,
    state: WorkspaceState | None = None,
    ack_timeout: float = ACK_TIMEOUT,
    ui: bool = False,
    pages: Sequence[Callable[[web.Application], None]] = (),
) -> AsyncIterator[Workspace]:
    """Start the Web API on ``host:port`` (0 picks a free port) and yield the :class:`Workspace`.

    ``ui=True`` also serves the browser page at ``/`` (see :mod:`workspace.web`); each of ``pages`` adds
    routes of its own (e.g. ``tandem dev``'s mail page).
    """
    state = state if state is not None else WorkspaceState()
    app = build_api(state, bot_token=bot_token)
    socket = SocketHub(on_change=state.changes.bump)
    socket.add_routes(app)
    page = add_ui(app, state) if ui else None
    for add in pages:
        add(app)
    async with serve(app, host=host, port=port) as base_url:
        state.site = base_url.rstrip("/")
        async with aiohttp.ClientSession() as session:
            workspace = Workspace(
                state,
                base_url=base_url,
                signing_secret=signing_secret,
                bot_token=bot_token,
                session=session,
                events_url=events_url,
                ack_timeout=ack_timeout,
                socket=socket,
            )
            if page is not None:
                page.workspace = workspace
            try:
                yield workspace
            finally:
                state.release_holds()
                await socket.close()
