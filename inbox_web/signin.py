"""Who is signed in to the inbox, and how they sign in.

``tandem dev`` signs people in with its person switcher: pick alice, bob or carol (see
:func:`inbox_web.settings.switching`); nothing of that exists in a served inbox without it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from urllib.parse import quote

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from inbox_web.settings import People


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
    """The ways people sign in to this inbox."""

    def __init__(self, switcher: People | None = None) -> None:
        self.switcher = switcher

    def people(self) -> Mapping[str, str] | None:
        """The person switcher's people (id -> name), when there is one."""
        return self.switcher() if self.switcher is not None else None

    def providers(self) -> Sequence[tuple[str, str]]:
        """(label, path under the inbox) for each chat platform people sign in with."""
        return ()

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
        if self.switcher is None:
            return []
        return [Route("/signin/switch", self._switch, methods=["POST"]), Route("/signin/as", self._as)]

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


def safe_next(root: str, wanted: str) -> str:
    """``wanted`` if it is a path of this inbox (``root``…), else the inbox's list."""
    if wanted.startswith(root + "/") and not wanted.startswith("//") and "\\" not in wanted:
        return wanted
    return root + "/"
