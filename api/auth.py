"""Bearer tokens at the API's door: 401 for a missing, unknown, expired or revoked token, 403 for a missing scope."""

from __future__ import annotations

import time
from collections.abc import Callable

from aiohttp import web

from agent.models.tokens import ApiToken, Scope
from agent.ports import TokensStore
from agent.tokens import check, hash_token

WHY = {
    "missing": "No token: send the header 'Authorization: Bearer TOKEN' (tandem tokens create NAME makes one).",
    "unknown": "This token is not known here.",
    "expired": "This token has expired; make a new one with tandem tokens create.",
    "revoked": "This token was revoked; make a new one with tandem tokens create.",
}


def problem(status: int, title: str, detail: str, **more: object) -> web.Response:
    """An error as ``application/problem+json`` (RFC 9457)."""
    body = {"status": status, "title": title, "detail": detail, **more}
    return web.json_response(body, status=status, content_type="application/problem+json")


async def token_of(
    request: web.Request, store: TokensStore, scope: Scope, clock: Callable[[], float] = time.time
) -> ApiToken | web.Response:
    """The request's token if it may act with ``scope``; else the response that refuses it."""
    header = request.headers.get("Authorization", "")
    presented = header[7:].strip() if header[:7].lower() == "bearer " else ""
    stored = await store.token_by_hash(hash_token(presented)) if presented else None
    checked = check(stored, presented, scope, clock())
    if isinstance(checked, ApiToken):
        return checked
    if checked == "scope":
        return problem(403, "Forbidden", f"This token lacks the scope {scope}.")
    response = problem(401, "Unauthorized", WHY[checked])
    response.headers["WWW-Authenticate"] = 'Bearer realm="tandem"'
    return response
