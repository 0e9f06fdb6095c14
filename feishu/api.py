"""The few Feishu Open API calls Tandem makes, on aiohttp: nothing here blocks the event loop.

(lark-oapi's async calls fetch the tenant access token with a blocking HTTP client on the
caller's thread, so the bot's loop would stall on every token refresh; this client needs
only six endpoints.) The tenant access token is fetched once and cached until shortly
before it expires, or until Feishu says it is no longer valid.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import aiohttp

TOKEN_MARGIN = 300.0
"""Seconds before its expiry a token is renewed."""
TOKEN_INVALID = frozenset({99991661, 99991663, 99991668})
RATE_LIMITED = frozenset({99991400, 11232, 230020})
PERMANENT = frozenset({230001, 230002, 230025, 230099, 230110, 11310})
"""Errors no retry can cure: a bad request, the bot not in the chat, a message too long, a bad card."""
APP_REFUSED = frozenset({10003, 10012, 10014, 99991661, 99991663, 99991668, 99991672})
"""Feishu refusing the app itself: its id or secret (10003, 10012, 10014), its token even after renewal
(99991661, 99991663, 99991668), or a permission it lacks (99991672). No retry helps; an admin must."""


class FeishuError(Exception):
    """A call Feishu answered with an error (or not at all)."""

    def __init__(self, message: str, *, code: int | None = None, status: int = 0, retry_after: float | None = None):
        super().__init__(message)
        self.code = code
        self.status = status
        self.retry_after = retry_after

    @property
    def app_refused(self) -> bool:
        """Feishu refuses the app's credentials or permissions (anything else may pass: try again)."""
        return self.code in APP_REFUSED or self.status in (401, 403)

    @property
    def permanent(self) -> bool:
        return self.code in PERMANENT or (400 <= self.status < 500 and self.status not in (401, 408, 429))


class FeishuApi:
    def __init__(
        self,
        session: aiohttp.ClientSession,
        base_url: str,
        app_id: str,
        app_secret: str,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.session = session
        self.base_url = base_url.rstrip("/")
        self.app_id = app_id
        self.app_secret = app_secret
        self.clock = clock
        self._token: tuple[str, float] | None = None
        self._token_lock = asyncio.Lock()

    # --- the token ------------------------------------------------------------------------

    async def token(self) -> str:
        async with self._token_lock:
            if self._token is not None and self._token[1] > self.clock():
                return self._token[0]
            data = await self._call(
                "POST",
                "/open-apis/auth/v3/tenant_access_token/internal",
                body={"app_id": self.app_id, "app_secret": self.app_secret},
                auth=False,
            )
            token = str(data.get("tenant_access_token") or "")
            if not token:
                raise FeishuError("no tenant_access_token in Feishu's answer")
            self._token = (token, self.clock() + float(data.get("expire", 7200)) - TOKEN_MARGIN)
            return token

    # --- messages ---------------------------------------------------------------------------

    async def send_card(self, chat_id: str, card: dict[str, Any], *, uuid: str | None = None) -> str:
        """Post ``card`` in a chat; the new message's id."""
        body = {"receive_id": chat_id, "msg_type": "interactive", "content": json.dumps(card, ensure_ascii=False)}
        if uuid:
            body["uuid"] = uuid
        data = await self.call("POST", "/open-apis/im/v1/messages", body=body, params={"receive_id_type": "chat_id"})
        return str(data["data"]["message_id"])

    async def reply_card(self, message_id: str, card: dict[str, Any], *, uuid: str | None = None) -> str:
        """Reply to ``message_id`` in its thread with ``card``; the reply's id. A repeated ``uuid`` posts once."""
        return await self._reply(message_id, "interactive", card, uuid)

    async def reply_text(self, message_id: str, text: str, *, uuid: str | None = None) -> str:
        """Reply to ``message_id`` in its thread with a text message (no card); the reply's id."""
        return await self._reply(message_id, "text", {"text": text}, uuid)

    async def _reply(self, message_id: str, kind: str, content: dict[str, Any], uuid: str | None) -> str:
        body: dict[str, Any] = {
            "msg_type": kind,
            "content": json.dumps(content, ensure_ascii=False),
            "reply_in_thread": True,
        }
        if uuid:
            body["uuid"] = uuid
        data = await self.call("POST", f"/open-apis/im/v1/messages/{message_id}/reply", body=body)
        return str(data["data"]["message_id"])

    async def ephemeral(self, chat_id: str, open_id: str, card: dict[str, Any]) -> None:
        """A card only ``open_id`` sees in a group chat (Tandem's private answers: refusals, help)."""
        body = {"chat_id": chat_id, "open_id": open_id, "msg_type": "interactive", "card": card}
        await self.call("POST", "/open-apis/ephemeral/v1/send", body=body)

    async def send_to_user(self, open_id: str, card: dict[str, Any]) -> None:
        """A card in ``open_id``'s direct chat with the bot."""
        body = {"receive_id": open_id, "msg_type": "interactive", "content": json.dumps(card, ensure_ascii=False)}
        await self.call("POST", "/open-apis/im/v1/messages", body=body, params={"receive_id_type": "open_id"})

    async def patch_card(self, message_id: str, card: dict[str, Any]) -> None:
        body = {"content": json.dumps(card, ensure_ascii=False)}
        await self.call("PATCH", f"/open-apis/im/v1/messages/{message_id}", body=body)

    async def delayed_update(self, token: str, card: dict[str, Any]) -> None:
        """Update a card through a callback's token (within 30 min of the click, at most twice)."""
        await self.call("POST", "/open-apis/interactive/v1/card/update", body={"token": token, "card": card})

    # --- people and the bot ---------------------------------------------------------------

    async def user(self, open_id: str) -> dict[str, Any]:
        data = await self.call(
            "GET",
            f"/open-apis/contact/v3/users/{open_id}",
            params={"user_id_type": "open_id", "department_id_type": "open_department_id"},
        )
        user = data.get("data", {}).get("user", {})
        return user if isinstance(user, dict) else {}

    async def bot_open_id(self) -> str:
        data = await self.call("GET", "/open-apis/bot/v3/info")
        return str(data.get("bot", {}).get("open_id") or "")

    async def tenant_key(self) -> str:
        data = await self.call("GET", "/open-apis/tenant/v2/tenant/query")
        return str(data.get("data", {}).get("tenant", {}).get("tenant_key") or "")

    # --- calling ----------------------------------------------------------------------------

    async def call(
        self, method: str, path: str, *, body: dict[str, Any] | None = None, params: dict[str, str] | None = None
    ) -> dict[str, Any]:
        """One authorised call; a token Feishu no longer accepts is renewed once."""
        try:
            return await self._call(method, path, body=body, params=params)
        except FeishuError as exc:
            if exc.code not in TOKEN_INVALID:
                raise
            self._token = None
            return await self._call(method, path, body=body, params=params)

    async def _call(
        self,
        method: str,
        path: str,
        *,
        body: dict[str, Any] | None = None,
        params: dict[str, str] | None = None,
        auth: bool = True,
    ) -> dict[str, Any]:
        headers = {"Content-Type": "application/json; charset=utf-8"}
        if auth:
            headers["Authorization"] = f"Bearer {await self.token()}"
        try:
            async with self.session.request(
                method,
                self.base_url + path,
                json=body,
                params=params,
                headers=headers,
                timeout=aiohttp.ClientTimeout(total=10),
            ) as resp:
                status = resp.status
                retry_after = resp.headers.get("Retry-After") or resp.headers.get("x-ogw-ratelimit-reset")
                try:
                    data = await resp.json(content_type=None)
                except (ValueError, aiohttp.ContentTypeError):
                    data = None
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise FeishuError(f"connection failed: {type(exc).__name__}") from None
        if not isinstance(data, dict):
            raise FeishuError(f"HTTP {status} without a JSON answer from {path}", status=status)
        code = data.get("code", 0)
        if status == 429 or code in RATE_LIMITED:
            wait = float(retry_after) if retry_after and retry_after.replace(".", "", 1).isdigit() else None
            raise FeishuError(f"rate limited ({code})", code=code, status=status, retry_after=wait)
        if code != 0 or status >= 400:
            msg = str(data.get("msg", ""))[:200]
            raise FeishuError(f"{path.rsplit('/', 1)[-1] or path}: {code} {msg}", code=code, status=status)
        return data
