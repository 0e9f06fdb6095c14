"""Tandem as an A2A server on ``tandem serve``: the agent card at ``/.well-known/agent-card.json``, JSON-RPC at
``/a2a`` (the SDK's routes on :class:`~api.a2a.handler.RunsHandler`, behind the token check)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from a2a.server.request_handlers.response_helpers import agent_card_to_dict
from a2a.server.routes import create_jsonrpc_routes
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH
from aiohttp import web
from starlette.applications import Starlette

from agent.ports import Store
from agent.runtime import Runtime
from agent.usecases import UseCases
from api.a2a.auth import TokenCheck, WithToken
from api.a2a.card import PATH, card
from api.a2a.handler import RunsHandler
from api.a2a.watch import Door
from api.asgi import mount_asgi

__all__ = ["mount"]


def _version() -> str:
    try:
        return version("tandem")
    except PackageNotFoundError:  # run from a checkout
        return "0"


def mount(application: web.Application, store: Store, runtime: Runtime, usecases: UseCases) -> Door:
    """Serve the agent card and the A2A JSON-RPC endpoint in ``application``."""
    door = Door(store, runtime, usecases)
    runtime.observers.append(door.changes)
    routes = create_jsonrpc_routes(RunsHandler(door), "/", context_builder=WithToken())
    mount_asgi(application, PATH, TokenCheck(Starlette(routes=routes), store, runtime.clock))
    known = _version()

    async def agent_card(request: web.Request) -> web.Response:
        base = f"{request.scheme}://{request.host}"
        return web.json_response(agent_card_to_dict(card(base, known)))

    application.router.add_get(AGENT_CARD_WELL_KNOWN_PATH, agent_card)
    return door
