"""Bearer tokens at the API's door: 401 for a missing, unknown, expired or revoked token, 403 for a missing scope.

:func:`bearer` checks a request's ``Authorization`` header against the stored tokens and :func:`refusal` says
why a token was refused, as an ``application/problem+json`` body; the REST API (aiohttp) and the MCP endpoint
(Starlette) each render it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from agent.models.tokens import ApiToken, Scope
from agent.ports import TokensStore
from agent.tokens import Refusal, check, hash_token

WHY = {
    "missing": "No token: send the header 'Authorization: Bearer TOKEN' (tandem tokens create NAME makes one).",
    "unknown": "This token is not known here.",
    "expired": "This token has expired; make a new one with tandem tokens create.",
    "revoked": "This token was revoked; make a new one with tandem tokens create.",
}
CHALLENGE = 'Bearer realm="tandem"'


@dataclass(frozen=True)
class TokenRefused:
    """A refused request as the client sees it: the status, the problem body and the headers."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str]


def problem_body(status: int, title: str, detail: str, **more: object) -> dict[str, Any]:
    """An error's body as ``application/problem+json`` (RFC 9457)."""
    return {"status": status, "title": title, "detail": detail, **more}


def problem(status: int, title: str, detail: str, **more: object) -> web.Response:
    """An error as ``application/problem+json`` (RFC 9457)."""
    body = problem_body(status, title, detail, **more)
    return web.json_response(body, status=status, content_type="application/problem+json")


async def bearer(header: str, store: TokensStore, scope: Scope, now: float) -> ApiToken | TokenRefused:
    """The token in ``header`` (an ``Authorization`` value) if it may act with ``scope``, else why not."""
    presented = header[7:].strip() if header[:7].lower() == "bearer " else ""
    stored = await store.token_by_hash(hash_token(presented)) if presented else None
    checked = check(stored, presented, scope, now)
    return checked if isinstance(checked, ApiToken) else refusal(checked, scope)


def refusal(why: Refusal, scope: Scope) -> TokenRefused:
    if why == "scope":
        return TokenRefused(403, problem_body(403, "Forbidden", f"This token lacks the scope {scope}."), {})
    return TokenRefused(401, problem_body(401, "Unauthorized", WHY[why]), {"WWW-Authenticate": CHALLENGE})


async def token_of(
    request: web.Request, store: TokensStore, scope: Scope, clock: Callable[[], float] = time.time
) -> ApiToken | web.Response:
    """The request's token if it may act with ``scope``; else the response that refuses it."""
    checked = await bearer(request.headers.get("Authorization", ""), store, scope, clock())
    if isinstance(checked, ApiToken):
        return checked
    response = web.json_response(checked.body, status=checked.status, content_type="application/problem+json")
    response.headers.update(checked.headers)
    return response
