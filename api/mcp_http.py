"""``/mcp`` on ``tandem serve``: the same two MCP tools as ``tandem mcp`` (:mod:`api.mcp_server`), over
streamable HTTP, served by the SDK's own Starlette app inside the bot's aiohttp app (:func:`api.asgi.mount_asgi`).

Every request presents an API token (``Authorization: Bearer TOKEN``) with the scope ``handoffs:write``: a
missing, unknown, expired or revoked token is refused with 401, one without the scope with 403, each saying why
(the same words as ``/api/v1``). The token is the caller, request by request: its handoffs and idempotency keys are
the token's, shared with ``/api/v1/handoffs``, and the audit trail says ``token:NAME`` asked.

The endpoint keeps no session (stateless streamable HTTP): any request may reach any process serving the database,
and a client whose call was cut off (the server restarted, a proxy timed out) calls again with its idempotency key
and gets the same handoff, answered or waited for again.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.mcpserver import Context
from mcp.server.transport_security import TransportSecuritySettings
from starlette.authentication import AuthCredentials
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from agent.asking import Asking
from agent.models.tokens import ApiToken
from agent.models.tokens import Scope as TokenScope
from api.asgi import mount_asgi
from api.auth import bearer
from api.mcp_server import PROGRESS_EVERY, HandoffTools, build_server

PATH = "/mcp"
SCOPE: TokenScope = "handoffs:write"
"""What a token needs to call ``/mcp``: asking (and reading back what it asked)."""
REFUSED = -32010
"""The JSON-RPC error code of a request refused for its token (HTTP 401 or 403, the reason its message)."""
CALLER = "tandem.token"
"""Where a request's checked token is kept in its ASGI scope, for the tool call to act as."""


class TokenGate:
    """Refuses a request without a usable token before the MCP app sees it; keeps the token for the tools.

    The token is also the request's ``user`` as the SDK knows it, so a session could never change hands."""

    def __init__(self, app: ASGIApp, asking: Asking) -> None:
        self.app = app
        self.asking = asking

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan
            await self.app(scope, receive, send)
            return
        header = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"authorization"), "")
        checked = await bearer(header, self.asking.tokens, SCOPE, self.asking.runtime.clock())
        if not isinstance(checked, ApiToken):
            # A JSON-RPC error (an MCP client shows its message), the problem's details as its data.
            error = {"code": REFUSED, "message": checked.body["detail"], "data": checked.body}
            refused = JSONResponse({"jsonrpc": "2.0", "id": None, "error": error}, checked.status, checked.headers)
            await refused(scope, receive, send)
            return
        access = AccessToken(token="", client_id=checked.name, scopes=list(checked.scopes))
        scope = {**scope, "user": AuthenticatedUser(access), "auth": AuthCredentials(access.scopes), CALLER: checked}
        if scope["path"] == scope.get("root_path"):  # /mcp itself is the app's root
            scope["path"] += "/"
        await self.app(scope, receive, send)


def token_of(ctx: Context | None) -> ApiToken:
    """The token of the request a tool call came in (checked at the door)."""
    request: Any = None if ctx is None else ctx.request_context.request
    token = None if request is None else request.scope.get(CALLER)
    if not isinstance(token, ApiToken):  # only TokenGate's requests reach the tools
        raise RuntimeError("an MCP call over HTTP without a checked token")
    return token


def http_app(asking: Asking, *, progress_every: float = PROGRESS_EVERY) -> ASGIApp:
    """The MCP endpoint's ASGI app (served under ``/mcp``), its tools acting as each request's token."""
    server = build_server(HandoffTools(asking, token_of, progress_every=progress_every))
    # The token, not the Host header, keeps other sites out: a browser cannot send it for them.
    open_hosts = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    app = server.streamable_http_app(streamable_http_path="/", stateless_http=True, transport_security=open_hosts)
    return TokenGate(app, asking)


def mount(application: web.Application, asking: Asking, *, progress_every: float = PROGRESS_EVERY) -> None:
    """Serve ``/mcp`` from ``application`` (the bot's app), asking through ``asking``."""
    mount_asgi(application, PATH, http_app(asking, progress_every=progress_every))
