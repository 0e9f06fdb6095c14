"""The inbox as a Starlette app: the list, an item's page, answering it, live updates, sign-in.

Mounted at ``/inbox`` (see :func:`inbox_web.mount`); every route below is written without the prefix. Sessions
are Starlette's ``SessionMiddleware`` (a signed cookie), CSRF is ``starlette-csrf`` (a cookie and the
``X-CSRFToken`` header every page's script sends): no state-changing request is taken without it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from sse_starlette import EventSourceResponse
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates
from starlette_csrf.middleware import CSRFMiddleware

from inbox_web import words
from inbox_web.answers import AnswerForm, answer, told
from inbox_web.items import Door, find, inbox
from inbox_web.live import Live
from inbox_web.settings import InboxSettings
from inbox_web.signin import SignIn, signed_in

HERE = Path(__file__).parent
SESSION_COOKIE = "tandem_inbox_session"
CSRF_COOKIE = "tandem_inbox_csrf"
templates = Jinja2Templates(directory=HERE / "templates")
templates.env.filters["prose"] = words.prose
templates.env.filters["when"] = words.when


def build_app(door: Door, settings: InboxSettings, live: Live, sign_in: SignIn) -> Starlette:
    """The inbox on ``door`` (the store, the policy, the use cases), signing people in with ``sign_in``."""

    def page(request: Request, name: str, status_code: int = 200, **context: Any) -> Response:
        context |= {"root": request.scope.get("root_path", ""), "me": request.session.get("person")}
        context |= {"my_name": request.session.get("name", ""), "switcher": sign_in.people()}
        return templates.TemplateResponse(request, name, context, status_code=status_code)

    async def listing(request: Request) -> Response:
        person = signed_in(request)
        if person is None:
            return sign_in.send_to_sign_in(request)
        items = await inbox(door, person)
        name = "list_part.html" if request.query_params.get("part") == "list" else "list.html"
        return page(request, name, items=items)

    async def item(request: Request) -> Response:
        person = signed_in(request)
        if person is None:
            return sign_in.send_to_sign_in(request)
        found = await find(door, request.path_params["review_id"], person)
        name = "item_part.html" if request.query_params.get("part") == "item" else "item.html"
        return page(request, name, 200 if found else 404, found=found)

    async def answering(request: Request) -> Response:
        person = signed_in(request)
        if person is None:
            return JSONResponse({"ok": False, "message": words.SIGN_IN}, status_code=401)
        try:
            form = AnswerForm.model_validate(await request.json())
        except (ValueError, ValidationError) as exc:
            error = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else "not JSON"
            return JSONResponse({"ok": False, "message": words.BAD_FORM.format(error=error)}, status_code=422)
        found = await find(door, request.path_params["review_id"], person)
        if found is None:  # unknown, or not theirs: nothing is written, and nothing said about it
            return JSONResponse({"ok": False, "message": words.NOT_FOUND}, status_code=404)
        outcome = await answer(door.usecases(person), found.record.id, found.record.step, form, person)
        status, message = told(outcome, form.choice)
        return JSONResponse({"ok": status < 300, "message": message}, status_code=status)

    async def events(request: Request) -> Response:
        if signed_in(request) is None:
            return JSONResponse({"ok": False, "message": words.SIGN_IN}, status_code=401)
        return EventSourceResponse(live.stream(), ping=10)

    async def signin_page(request: Request) -> Response:
        return page(request, "signin.html", next=sign_in.next_of(request), providers=sign_in.providers())

    async def signout(request: Request) -> Response:
        request.session.clear()
        return JSONResponse({"ok": True, "go": f"{request.scope.get('root_path', '')}/signin"})

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        live.serving()
        try:
            yield
        finally:
            live.close()
            await sign_in.close()

    secret = settings.session_secret()
    middleware = [
        Middleware(
            SessionMiddleware,
            secret_key=secret,
            session_cookie=SESSION_COOKIE,
            same_site="lax",
            https_only=settings.inbox_secure_cookies,
        ),
        Middleware(CSRFMiddleware, secret=secret, cookie_name=CSRF_COOKIE, cookie_secure=settings.inbox_secure_cookies),
    ]
    routes = [
        Route("/", listing),
        Route("/items/{review_id}", item),
        Route("/items/{review_id}/answer", answering, methods=["POST"]),
        Route("/events", events),
        Route("/signin", signin_page),
        Route("/signout", signout, methods=["POST"]),
        *sign_in.routes(),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    return Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
