"""``/api/v1/handoffs``: create, read (long-poll with ``?wait=``) and cancel handoffs; ``/api/v1/openapi.json``."""

from __future__ import annotations

import json
import math
from typing import assert_never

from aiohttp import web
from aiohttp.typedefs import Handler
from pydantic import ValidationError

from agent.asking import Asking, AskRequest, HandoffView, NoSuchHandoff, Unserved
from agent.models.tokens import ApiToken, Scope
from agent.outcomes import NotApplied, Refused
from agent.runtime.home import Acks
from api.auth import problem, token_of
from api.openapi import document

PREFIX = "/api/v1"
ASKING: web.AppKey[Asking] = web.AppKey("asking", Asking)
ACKS: web.AppKey[Acks] = web.AppKey("api_acks", Acks)


@web.middleware
async def answering(request: web.Request, handler: Handler) -> web.StreamResponse:
    """While a request that answers at once is open, the outbox's sends wait (:class:`Acks`): in a burst of
    creates, each caller hears back before the cards and questions of the ones before go out. A read that
    waits (``?wait=``) does not count: it may stay open for half a minute."""
    acks = request.app.get(ACKS)
    if acks is None or not request.path.startswith(f"{PREFIX}/handoffs") or "wait" in request.query:
        return await handler(request)
    acks.opened()
    try:
        return await handler(request)
    finally:
        acks.closed()


async def _token(request: web.Request, scope: Scope) -> ApiToken | web.Response:
    asking = request.app[ASKING]
    return await token_of(request, asking.tokens, scope, asking.runtime.clock)


def _unprocessable(exc: ValidationError) -> web.Response:
    first = exc.errors()[0]
    detail = str(first["msg"]).removeprefix("Value error, ")
    if first["loc"]:
        field = ".".join(str(x) for x in first["loc"])
        return problem(422, "Unprocessable Content", f"{field}: {detail}", field=field)
    named, said, _ = detail.partition(":")  # a check across fields names its field first ("options: …")
    return problem(422, "Unprocessable Content", detail, field=named if said else "body")


def _shown(request: web.Request, view: HandoffView, status: int = 200) -> web.Response:
    body = view.model_dump(mode="json")
    body["url"] = str(request.url.with_path(f"{PREFIX}/handoffs/{view.id}").with_query(None))
    return web.json_response(body, status=status)


async def create(request: web.Request) -> web.Response:
    asking, token = request.app[ASKING], await _token(request, "handoffs:write")
    if isinstance(token, web.Response):
        return token
    try:
        raw = await request.json()
    except json.JSONDecodeError as exc:
        return problem(400, "Bad Request", f"The body is not JSON: {exc}")
    try:
        wanted = AskRequest.model_validate(raw)
    except ValidationError as exc:
        return _unprocessable(exc)
    try:
        created = await asking.ask(token, wanted)
    except Unserved as exc:
        return problem(422, "Unprocessable Content", f"channel: {exc}", field="channel")
    return _shown(request, created.handoff, 201 if created.new else 200)


async def read(request: web.Request) -> web.Response:
    asking, token = request.app[ASKING], await _token(request, "handoffs:read")
    if isinstance(token, web.Response):
        return token
    try:
        wait = float(request.query.get("wait", "0"))
    except ValueError:
        wait = math.nan
    if not math.isfinite(wait) or wait < 0:
        return problem(422, "Unprocessable Content", "wait: give seconds (0 to 30), like ?wait=25", field="wait")
    found = await asking.read(token, request.match_info["id"], wait)
    if isinstance(found, NoSuchHandoff):
        return problem(404, "Not Found", f"No handoff {found.id} for this token.")
    return _shown(request, found)


async def cancel(request: web.Request) -> web.Response:
    asking, token = request.app[ASKING], await _token(request, "handoffs:write")
    if isinstance(token, web.Response):
        return token
    done = await asking.cancel(token, request.match_info["id"])
    match done:
        case NoSuchHandoff():
            return problem(404, "Not Found", f"No handoff {done.id} for this token.")
        case Refused():
            return problem(403, "Forbidden", done.refusal.describe())
        case NotApplied():
            return problem(409, "Conflict", done.message)
        case HandoffView():
            return _shown(request, done)
        case _:
            assert_never(done)


async def openapi(request: web.Request) -> web.Response:
    return web.json_response(document())


def mount(application: web.Application, asking: Asking, acks: Acks | None = None) -> None:
    application[ASKING] = asking
    if acks is not None:
        application[ACKS] = acks
        application.middlewares.append(answering)
    application.router.add_post(f"{PREFIX}/handoffs", create)
    application.router.add_get(f"{PREFIX}/handoffs/{{id}}", read)
    application.router.add_post(f"{PREFIX}/handoffs/{{id}}/cancel", cancel)
    application.router.add_get(f"{PREFIX}/openapi.json", openapi)
