"""``POST /feishu/events``: Feishu's events and card callbacks, checked at the edge before anything changes.

Order of checks (each refusal is a 4xx with a reason, logged, and changes nothing):
the body is JSON with an ``encrypt`` field that our Encrypt Key decrypts (400); it reads as
a payload Tandem knows (400); the URL check echoes its challenge after the verification
token; everything else must carry a valid ``X-Lark-Signature`` (401), be at most
``max_skew`` seconds old by a finite timestamp (401), carry our verification token (401) and come from our app
and tenant (403). When Feishu cannot be asked which tenant is ours, an event gets a 503 (Feishu pushes
it again) and a card callback a toast saying why (Feishu not answering, or refusing the app). Events are
answered at once (their work runs in the background);
card callbacks are answered with the updated card (see :mod:`feishu.clicks`).
"""

from __future__ import annotations

import hmac
import json
import logging
import math
from typing import Any

from aiohttp import web

from feishu.clicks import toast
from feishu.crypto import Undecryptable, decrypt, signed
from feishu.deps import FeishuDeps
from feishu.dispatch import TenantUnknown, answer, foreign
from feishu.payloads import CardCallback, Unreadable, UrlVerification, inbound

log = logging.getLogger("tandem.feishu")

PATH = "/feishu/events"
MAX_BODY = 1 << 20


def refuse(status: int, reason: str) -> web.Response:
    log.warning("refused a Feishu request (%d): %s; nothing changed", status, reason)
    return web.json_response({"error": reason}, status=status)


def mount(app: web.Application, deps: FeishuDeps) -> None:
    """Serve Feishu on ``app`` (the same server as Slack's ``/slack/events``, when both run)."""

    async def handler(request: web.Request) -> web.Response:
        return await handle(deps, request)

    app.router.add_post(PATH, handler)


async def handle(deps: FeishuDeps, request: web.Request) -> web.Response:
    settings = deps.settings
    if request.content_length is not None and request.content_length > MAX_BODY:
        return refuse(413, "body too large")
    raw = await request.read()
    payload = _decrypted(raw, settings.secret("encrypt_key"))
    if isinstance(payload, web.Response):
        return payload
    try:
        model = inbound(payload)
    except Unreadable as exc:
        return refuse(400, f"unreadable payload: {exc}")
    token = settings.secret("verification_token")
    if isinstance(model, UrlVerification):
        if not hmac.compare_digest(model.token.encode(), token.encode()):
            return refuse(401, "wrong verification token")
        return web.json_response({"challenge": model.challenge})
    headers = request.headers
    stamp, nonce = headers.get("X-Lark-Request-Timestamp", ""), headers.get("X-Lark-Request-Nonce", "")
    given = headers.get("X-Lark-Signature", "")
    if not (stamp and nonce and given) or not signed(stamp, nonce, settings.secret("encrypt_key"), raw, given):
        return refuse(401, "missing or wrong signature")
    try:
        age = abs(deps.clock() - float(stamp))
    except ValueError:
        return refuse(401, "unreadable timestamp")
    if not math.isfinite(age):  # "nan", "inf", "1e999": every comparison with NaN is false
        return refuse(401, f"timestamp is not a finite number: {stamp[:40]!r}")
    if age > settings.max_skew:
        return refuse(401, f"stale request ({age:.0f} s old)")
    header = model.header
    if not hmac.compare_digest(header.token.encode(), token.encode()):
        return refuse(401, "wrong verification token")
    try:
        why = await foreign(deps, header)
    except TenantUnknown as exc:
        if isinstance(model, CardCallback):  # the person who clicked is told, on a toast
            return web.json_response(toast("error", exc.text))
        return web.json_response({"error": exc.text}, status=503)  # an event: Feishu pushes it again
    if why is not None:
        return refuse(403, why)
    return web.json_response(await answer(deps, model))


def _decrypted(raw: bytes, encrypt_key: str) -> dict[str, Any] | web.Response:
    try:
        outer = json.loads(raw)
    except (ValueError, RecursionError):
        return refuse(400, "the body is not JSON")
    if not isinstance(outer, dict) or not isinstance(outer.get("encrypt"), str):
        return refuse(400, "the body is not encrypted (set an Encrypt Key in the app's console)")
    try:
        inner = json.loads(decrypt(encrypt_key, outer["encrypt"]))
    except Undecryptable as exc:
        return refuse(400, str(exc))
    except (ValueError, RecursionError):
        return refuse(400, "the decrypted body is not JSON")
    if not isinstance(inner, dict):
        return refuse(400, "the decrypted body is not a JSON object")
    return inner
