"""Feishu's web sign-in (OAuth 2.0), as the local Feishu plays it: the authorize page, the user access token
(``POST /open-apis/authen/v2/oauth/token``) and the user's info (``GET /open-apis/authen/v1/user_info``).

Feishu's authorize page lives on ``accounts.feishu.cn``; here it is served beside the Open API. Picking a person
sends the browser back to ``redirect_uri`` with a one-time ``code`` and the ``state`` it came with.
"""

from __future__ import annotations

import html
import secrets
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from aiohttp import web

AUTHORIZE = "/open-apis/authen/v1/authorize"
TOKEN = "/open-apis/authen/v2/oauth/token"
USER_INFO = "/open-apis/authen/v1/user_info"


@dataclass
class FeishuGrants:
    """Codes and user access tokens handed out; ``people``: name -> (open id, display name, departments)."""

    app_id: str
    app_secret: str
    tenant_key: str
    people: dict[str, tuple[str, str, list[str]]]
    codes: dict[str, tuple[str, str]] = field(default_factory=dict)  # code -> (open id, redirect_uri)
    tokens: dict[str, str] = field(default_factory=dict)  # user access token -> open id
    calls: list[str] = field(default_factory=list)

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get(AUTHORIZE, self._authorize)
        app.router.add_get(AUTHORIZE + "/as", self._chosen)
        app.router.add_post(TOKEN, self._token)
        app.router.add_get(USER_INFO, self._user_info)

    def _person(self, open_id: str) -> tuple[str, str] | None:
        return next(((oid, name) for oid, name, _ in self.people.values() if oid == open_id), None)

    async def _authorize(self, request: web.Request) -> web.Response:
        query = request.query
        if query.get("client_id") != self.app_id or not query.get("redirect_uri"):
            return web.Response(status=400, text="unknown client_id, or no redirect_uri")
        links = "".join(
            f'<li><a data-testid="feishu-signin-as" href="{AUTHORIZE}/as?'
            f'{html.escape(urlencode({**query, "person": oid}))}">{html.escape(name)}</a></li>'
            for oid, name, _ in self.people.values()
        )
        page = f"<!doctype html><title>Feishu</title><h1>Authorize Tandem local</h1><ul>{links}</ul>"
        return web.Response(text=page, content_type="text/html")

    async def _chosen(self, request: web.Request) -> web.Response:
        query = request.query
        if self._person(query.get("person", "")) is None or query.get("client_id") != self.app_id:
            return web.Response(status=400, text="unknown person or client")
        code = secrets.token_urlsafe(16)
        self.codes[code] = (query["person"], query["redirect_uri"])
        raise web.HTTPFound(f"{query['redirect_uri']}?{urlencode({'code': code, 'state': query.get('state', '')})}")

    async def _token(self, request: web.Request) -> web.Response:
        self.calls.append(TOKEN)
        body: dict[str, Any] = await request.json()
        if body.get("client_id") != self.app_id or body.get("client_secret") != self.app_secret:
            return web.json_response({"code": 20002, "error": "invalid_client"}, status=400)
        if body.get("grant_type") != "authorization_code":
            return web.json_response({"code": 20003, "error": "unsupported_grant_type"}, status=400)
        granted = self.codes.pop(str(body.get("code", "")), None)
        if granted is None or granted[1] != body.get("redirect_uri"):
            return web.json_response({"code": 20003, "error": "invalid_grant"}, status=400)
        token = "u-" + secrets.token_hex(12)
        self.tokens[token] = granted[0]
        return web.json_response(
            {"code": 0, "access_token": token, "expires_in": 7200, "token_type": "Bearer", "scope": ""}
        )

    async def _user_info(self, request: web.Request) -> web.Response:
        self.calls.append(USER_INFO)
        open_id = self.tokens.get(request.headers.get("Authorization", "").removeprefix("Bearer ").strip())
        person = self._person(open_id) if open_id is not None else None
        if person is None:
            return web.json_response({"code": 20005, "msg": "invalid access token"}, status=401)
        data = {"open_id": person[0], "name": person[1], "en_name": person[1], "tenant_key": self.tenant_key}
        return web.json_response({"code": 0, "msg": "success", "data": data})
