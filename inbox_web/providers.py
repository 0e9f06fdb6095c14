"""Signing in with a chat platform: Slack (OpenID Connect) and Feishu (OAuth 2.0).

Each provider sends the browser to its platform's authorize page and, when it comes back with a code, trades the
code for a user token and reads who that is, server to server. Only people of this app's own Slack workspace or
Feishu tenant get in: someone of another one is told so.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlencode, urlsplit, urlunsplit

import aiohttp


@dataclass(frozen=True)
class Who:
    person: str  # the principal id the policy names: a Slack user id, a Feishu open id
    name: str


class SignInFailed(Exception):
    """Why a sign-in did not work, in words for the person."""


class Provider(Protocol):
    @property
    def key(self) -> str:
        """Its path: ``/signin/KEY``."""
        ...

    @property
    def label(self) -> str: ...

    def authorize_url(self, redirect_uri: str, state: str) -> str: ...

    async def who(self, http: aiohttp.ClientSession, code: str, redirect_uri: str) -> Who: ...


@dataclass(frozen=True)
class Slack:
    """Sign in with Slack: ``openid.connect.token`` then ``openid.connect.userInfo`` on the Web API."""

    client_id: str
    client_secret: str
    api_url: str  # https://slack.com/api/
    team: Callable[[], Awaitable[str]]  # the bot's own workspace (auth.test)
    key: str = "slack"
    label: str = "Slack"

    @property
    def authorize(self) -> str:
        """``https://slack.com/openid/connect/authorize`` beside ``https://slack.com/api/``."""
        parts = urlsplit(self.api_url)
        return urlunsplit((parts.scheme, parts.netloc, "/openid/connect/authorize", "", ""))

    def authorize_url(self, redirect_uri: str, state: str) -> str:
        query = {"response_type": "code", "scope": "openid profile", "client_id": self.client_id}
        return f"{self.authorize}?{urlencode({**query, 'state': state, 'redirect_uri': redirect_uri})}"

    async def who(self, http: aiohttp.ClientSession, code: str, redirect_uri: str) -> Who:
        trade = {"client_id": self.client_id, "client_secret": self.client_secret, "code": code}
        trade |= {"redirect_uri": redirect_uri, "grant_type": "authorization_code"}
        token = await _json(http.post(self.api_url.rstrip("/") + "/openid.connect.token", data=trade))
        if not token.get("ok") or not token.get("access_token"):
            raise SignInFailed(f"Slack did not sign you in ({token.get('error', 'no token')}). Try again.")
        headers = {"Authorization": f"Bearer {token['access_token']}"}
        info = await _json(http.post(self.api_url.rstrip("/") + "/openid.connect.userInfo", headers=headers))
        user, team = info.get("https://slack.com/user_id"), info.get("https://slack.com/team_id")
        if not info.get("ok") or not isinstance(user, str):
            raise SignInFailed(f"Slack did not say who you are ({info.get('error', 'no user')}). Try again.")
        if team != await self.team():
            raise SignInFailed("That Slack account belongs to another workspace than this Tandem's.")
        return Who(user, str(info.get("name") or info.get("given_name") or user))


@dataclass(frozen=True)
class Feishu:
    """Sign in with Feishu or Lark: the v2 OAuth token endpoint, then ``authen/v1/user_info``."""

    app_id: str
    app_secret: str
    api_url: str  # https://open.feishu.cn
    tenant: Callable[[], Awaitable[str]]  # this app's tenant
    key: str = "feishu"
    label: str = "Feishu / Lark"

    @property
    def authorize(self) -> str:
        """``https://accounts.feishu.cn/open-apis/authen/v1/authorize`` beside ``https://open.feishu.cn``."""
        parts = urlsplit(self.api_url)
        host = "accounts." + parts.netloc.removeprefix("open.") if parts.netloc.startswith("open.") else parts.netloc
        return urlunsplit((parts.scheme, host, "/open-apis/authen/v1/authorize", "", ""))

    def authorize_url(self, redirect_uri: str, state: str) -> str:
        query = {"client_id": self.app_id, "response_type": "code", "redirect_uri": redirect_uri, "state": state}
        return f"{self.authorize}?{urlencode(query)}"

    async def who(self, http: aiohttp.ClientSession, code: str, redirect_uri: str) -> Who:
        trade = {"grant_type": "authorization_code", "client_id": self.app_id, "client_secret": self.app_secret}
        trade |= {"code": code, "redirect_uri": redirect_uri}
        base = self.api_url.rstrip("/")
        token = await _json(http.post(base + "/open-apis/authen/v2/oauth/token", json=trade))
        if token.get("code") != 0 or not token.get("access_token"):
            raise SignInFailed(f"Feishu did not sign you in ({token.get('error') or token.get('msg')}). Try again.")
        headers = {"Authorization": f"Bearer {token['access_token']}"}
        info = await _json(http.get(base + "/open-apis/authen/v1/user_info", headers=headers))
        data = info.get("data") if info.get("code") == 0 else None
        if not isinstance(data, dict) or not isinstance(data.get("open_id"), str):
            raise SignInFailed(f"Feishu did not say who you are ({info.get('msg', 'no user')}). Try again.")
        if data.get("tenant_key") != await self.tenant():
            raise SignInFailed("That Feishu account belongs to another organisation than this Tandem's.")
        return Who(data["open_id"], str(data.get("name") or data["open_id"]))


async def _json(request: Any) -> dict[str, Any]:
    """The JSON a platform answered, whatever the status; {} when it answered none."""
    try:
        async with request as response:
            body = await response.json(content_type=None)
    except (aiohttp.ClientError, ValueError) as exc:
        raise SignInFailed(f"The sign-in service could not be reached ({exc}). Try again.") from exc
    return body if isinstance(body, dict) else {}
