"""Who is signed in to the inbox, and how they sign in.

People sign in with their chat platform (:mod:`inbox_web.providers`): the browser goes to its authorize page with
a ``state`` kept in the session, and comes back with a code the server trades for who they are. ``tandem dev``
signs people in with its person switcher instead: pick alice, bob or carol (see
:func:`inbox_web.settings.switching`); nothing of that exists in a served inbox without it.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from urllib.parse import quote

import aiohttp
from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from inbox_web import words
from inbox_web.providers import Provider, SignInFailed
from inbox_web.settings import People

PLATFORM_TIMEOUT = 10.0
"""Seconds a sign-in waits for the platform's token and user info."""


def signed_in(request: Request) -> str | None:
    """The person this request's session belongs to (None: nobody signed in)."""
    person = request.session.get("person")
    return person if isinstance(person, str) and person else None


def sign_in_as(request: Request, person: str, name: str, via: str) -> None:
    """Start a session for ``person`` (a principal id); a session before it ends."""
    request.session.clear()
    request.session.update({"person": person, "name": name, "via": via})


class _Switch(BaseModel, extra="forbid"):
    person: str
    next: str = ""


class SignIn:
    """The ways people sign in to this inbox: the chat platforms' (``providers``), or ``tandem dev``'s switcher."""

    def __init__(
        self, switcher: People | None = None, providers: Sequence[Provider] = (), url: str | None = None
    ) -> None:
        self.switcher = switcher
        self.by_key = {p.key: p for p in providers}
        self.url = url.rstrip("/") if url else None
        self._http: aiohttp.ClientSession | None = None

    async def close(self) -> None:
        if self._http is not None:
            await self._http.close()
            self._http = None

    def http(self) -> aiohttp.ClientSession:
        """The session sign-ins talk to the platforms through (opened on first use, on the server's loop)."""
        if self._http is None:
            self._http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=PLATFORM_TIMEOUT))
        return self._http

    def people(self) -> Mapping[str, str] | None:
        """The person switcher's people (id -> name), when there is one."""
        return self.switcher() if self.switcher is not None else None

    def providers(self) -> Sequence[tuple[str, str]]:
        """(label, path under the inbox) for each chat platform people sign in with."""
        return [(p.label, f"/signin/{p.key}") for p in self.by_key.values()]

    def next_of(self, request: Request) -> str:
        """Where to go once signed in: a page of this inbox (never another site), else the list."""
        root = request.scope.get("root_path", "")
        wanted = request.query_params.get("next", "")
        return safe_next(root, wanted)

    def send_to_sign_in(self, request: Request) -> Response:
        root = request.scope.get("root_path", "")
        here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return RedirectResponse(f"{root}/signin?next={quote(here, safe='')}", status_code=303)

    def routes(self) -> list[BaseRoute]:
        platforms: list[BaseRoute] = [Route("/signin/{key}", self._go), Route("/signin/{key}/callback", self._back)]
        if self.switcher is None:
            return platforms
        return [Route("/signin/switch", self._switch, methods=["POST"]), Route("/signin/as", self._as), *platforms]

    def _back_to(self, request: Request, provider: Provider) -> str:
        base = self.url or str(request.base_url).rstrip("/")
        return f"{base}/signin/{provider.key}/callback"

    async def _go(self, request: Request) -> Response:
        """To the platform's authorize page, with a fresh ``state`` kept in the session."""
        provider = self.by_key.get(request.path_params["key"])
        if provider is None:
            return PlainTextResponse("No such way to sign in here.", status_code=404)
        state = secrets.token_urlsafe(24)
        request.session.update(
            {"signin_state": state, "signin_next": self.next_of(request), "signin_via": provider.key}
        )
        return RedirectResponse(provider.authorize_url(self._back_to(request, provider), state), status_code=303)

    async def _back(self, request: Request) -> Response:
        """Back from the platform: the ``state`` must be the one this browser left with; then who it is."""
        provider = self.by_key.get(request.path_params["key"])
        root = request.scope.get("root_path", "")
        expected = request.session.pop("signin_state", None)
        goal = safe_next(root, str(request.session.pop("signin_next", "")))
        via = request.session.pop("signin_via", None)
        query = request.query_params
        if provider is None or via != provider.key or not expected or query.get("state") != expected:
            return _failed(request, words.SIGNIN_EXPIRED)
        if query.get("error"):
            return _failed(request, words.SIGNIN_DENIED.format(error=query["error"]))
        try:
            who = await provider.who(self.http(), query.get("code", ""), self._back_to(request, provider))
        except SignInFailed as exc:
            return _failed(request, str(exc))
        sign_in_as(request, who.person, who.name, provider.key)
        return RedirectResponse(goal, status_code=303)

    async def _switch(self, request: Request) -> Response:
        """The switcher's form (a POST with the CSRF header): sign in as the person picked."""
        try:
            form = _Switch.model_validate(await request.json())
        except ValueError:
            return JSONResponse({"ok": False, "message": "Pick a person to sign in as."}, status_code=422)
        name = (self.people() or {}).get(form.person)
        if name is None:
            return JSONResponse({"ok": False, "message": f"Nobody called {form.person} here."}, status_code=422)
        sign_in_as(request, form.person, name, "switcher")
        return JSONResponse({"ok": True, "go": safe_next(request.scope.get("root_path", ""), form.next)})

    async def _as(self, request: Request) -> Response:
        """``?person=U0ALICE``: the workspace page's link, signed in as whoever that page shows."""
        person = request.query_params.get("person", "")
        name = (self.people() or {}).get(person)
        if name is None:
            return RedirectResponse(f"{request.scope.get('root_path', '')}/signin", status_code=303)
        sign_in_as(request, person, name, "switcher")
        return RedirectResponse(self.next_of(request), status_code=303)


def _failed(request: Request, why: str) -> Response:
    root = request.scope.get("root_path", "")
    return PlainTextResponse(f"{why}\nSign in again: {root}/signin", status_code=400)


def safe_next(root: str, wanted: str) -> str:
    """``wanted`` if it is a path of this inbox (``root``…), else the inbox's list."""
    if wanted.startswith(root + "/") and not wanted.startswith("//") and "\\" not in wanted:
        return wanted
    return root + "/"
