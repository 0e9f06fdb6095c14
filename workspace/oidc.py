"""Sign in with Slack (OpenID Connect), as the local workspace plays it: the authorize page, then the
``openid.connect.token`` and ``openid.connect.userInfo`` Web API methods.

``GET /openid/connect/authorize`` (Slack's is ``https://slack.com/openid/connect/authorize``) shows the people of
the workspace; picking one sends the browser back to ``redirect_uri`` with a one-time ``code`` and the ``state``
it came with. The app then trades the code for a user token with its client id and secret, and reads who signed in
with that token, exactly as against Slack.
"""

from __future__ import annotations

import html
import secrets
from dataclasses import dataclass, field
from urllib.parse import urlencode

from aiohttp import web

from workspace.models import TEAM_ID
from workspace.state import WorkspaceState

CLIENT_ID = "1000000000.2000000000"
CLIENT_SECRET = "tandem-local-client-secret"
TOKEN = "openid.connect.token"
USER_INFO = "openid.connect.userInfo"


@dataclass
class _Grants:
    codes: dict[str, tuple[str, str]] = field(default_factory=dict)  # code -> (user id, redirect_uri)
    tokens: dict[str, str] = field(default_factory=dict)  # user token -> user id


def add_routes(app: web.Application, state: WorkspaceState) -> None:
    """The authorize page and the two methods (registered before the catch-all ``/api/{method}``)."""
    grants = _Grants()

    async def authorize(request: web.Request) -> web.Response:
        query = request.query
        if query.get("client_id") != CLIENT_ID or not query.get("redirect_uri") or query.get("response_type") != "code":
            return web.Response(status=400, text="invalid_client_id, or no redirect_uri, or response_type is not code")
        people = [u for u in state.users.values() if not u.is_bot]
        links = "".join(
            f'<li><a data-testid="slack-signin-as" href="/openid/connect/authorize/as?'
            f'{html.escape(urlencode({**query, "person": u.id}))}">{html.escape(u.real_name)} ({u.name})</a></li>'
            for u in people
        )
        page = f"<!doctype html><title>Sign in with Slack</title><h1>Sign in to Tandem local</h1><ul>{links}</ul>"
        return web.Response(text=page, content_type="text/html")

    async def chosen(request: web.Request) -> web.Response:
        query = request.query
        person = state.users.get(query.get("person", ""))
        if person is None or query.get("client_id") != CLIENT_ID:
            return web.Response(status=400, text="unknown person or client")
        code = secrets.token_urlsafe(16)
        grants.codes[code] = (person.id, query["redirect_uri"])
        back = {"code": code, "state": query.get("state", "")}
        raise web.HTTPFound(f"{query['redirect_uri']}?{urlencode(back)}")

    async def token(request: web.Request) -> web.Response:
        form = {**request.query, **(await request.post())}
        if form.get("client_id") != CLIENT_ID or form.get("client_secret") != CLIENT_SECRET:
            return _failed(
                state, TOKEN, "invalid_client_id" if form.get("client_id") != CLIENT_ID else "bad_client_secret"
            )
        granted = grants.codes.pop(str(form.get("code", "")), None)
        if granted is None:
            return _failed(state, TOKEN, "invalid_code")
        if granted[1] != form.get("redirect_uri"):
            return _failed(state, TOKEN, "bad_redirect_uri")
        user_token = "xoxp-" + secrets.token_hex(12)
        grants.tokens[user_token] = granted[0]
        state.record(TOKEN, {"client_id": CLIENT_ID})
        return web.json_response(
            {"ok": True, "access_token": user_token, "token_type": "Bearer", "id_token": "not-read-by-tandem"}
        )

    async def user_info(request: web.Request) -> web.Response:
        header = request.headers.get("Authorization", "")
        user_id = grants.tokens.get(header.removeprefix("Bearer ").strip())
        if user_id is None:
            return _failed(state, USER_INFO, "invalid_auth")
        user = state.users[user_id]
        state.record(USER_INFO, {})
        return web.json_response(
            {
                "ok": True,
                "sub": user.id,
                "https://slack.com/user_id": user.id,
                "https://slack.com/team_id": TEAM_ID,
                "name": user.real_name,
                "given_name": user.name,
            }
        )

    app.router.add_get("/openid/connect/authorize", authorize)
    app.router.add_get("/openid/connect/authorize/as", chosen)
    app.router.add_post(f"/api/{TOKEN}", token)
    app.router.add_route("*", f"/api/{USER_INFO}", user_info)


def _failed(state: WorkspaceState, method: str, error: str) -> web.Response:
    state.record(method, {}, error=error)
    return web.json_response({"ok": False, "error": error})
