"""The bearer-token check in front of the A2A routes: the same tokens, refusals and words as ``/api/v1``."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from a2a.server.context import ServerCallContext
from a2a.server.routes import DefaultServerCallContextBuilder
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from agent.models.tokens import ApiToken
from agent.ports import TokensStore
from agent.tokens import check, hash_token
from api.a2a.card import SCOPE
from api.a2a.handler import TOKEN
from api.auth import WHY


def _refusal(status: int, title: str, detail: str) -> JSONResponse:
    headers = {"WWW-Authenticate": 'Bearer realm="tandem"'} if status == 401 else None
    body = {"status": status, "title": title, "detail": detail}
    return JSONResponse(body, status_code=status, headers=headers, media_type="application/problem+json")


class TokenCheck:
    """Lets a request through only with a token in force that has :data:`~api.a2a.card.SCOPE`; 401 or 403 else."""

    def __init__(self, app: ASGIApp, store: TokensStore, clock: Callable[[], float] = time.time) -> None:
        self.app = app
        self.store = store
        self.clock = clock

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        header = Request(scope).headers.get("authorization", "")
        presented = header[7:].strip() if header[:7].lower() == "bearer " else ""
        stored = await self.store.token_by_hash(hash_token(presented)) if presented else None
        checked = check(stored, presented, SCOPE, self.clock())
        if isinstance(checked, ApiToken):
            scope[TOKEN] = checked
            await self.app(scope, receive, send)
            return
        if checked == "scope":
            refusal = _refusal(403, "Forbidden", f"This token lacks the scope {SCOPE}.")
        else:
            refusal = _refusal(401, "Unauthorized", WHY[checked])
        await refusal(scope, receive, send)


class WithToken(DefaultServerCallContextBuilder):
    """The call context, with the token :class:`TokenCheck` let through."""

    def build(self, request: Request) -> ServerCallContext:
        context = super().build(request)
        token: Any = request.scope.get(TOKEN)
        context.state[TOKEN] = token
        return context
