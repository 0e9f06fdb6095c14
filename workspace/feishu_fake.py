"""A local Feishu-compatible server, and people who use it: for tests and ``tandem dev``.

It serves the Open API subset Tandem calls (tenant access token, message create / reply /
patch, delayed card update, ephemeral cards, user info, bot info, tenant info) on
127.0.0.1, keeps chats and threads in memory, and turns people's messages and clicks
into encrypted, signed requests to the bot's ``/feishu/events`` exactly as Feishu sends
them: ``{"encrypt": base64(iv ‖ AES-256-CBC(json))}`` with key SHA-256(Encrypt Key),
``X-Lark-Request-Timestamp`` / ``-Nonce`` / ``-Signature``. The envelope is built here,
independently of the bot's own decryption, so a test of one checks the other.
A card callback's answer replaces the clicked card, as Feishu's client does.

It also serves the long connection as lark-oapi's WebSocket client expects it: the
endpoint discovery ``POST /callback/ws/endpoint`` (app id and secret in, a ``ws://`` URL and
the client's settings out), then a WebSocket carrying protobuf frames
(:mod:`workspace.feishu_frames`). With ``transport="ws"`` people's messages and clicks go over
that connection as data frames (plain JSON, as Feishu sends them there), and the answer is
read from the frame the client sends back.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import itertools
import json
import os
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from typing import Any

import aiohttp
from aiohttp import web
from aiohttp.typedefs import Handler
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from workspace import feishu_frames as frames
from workspace.feishu_oauth import FeishuGrants
from workspace.server import serve

APP_ID = "cli_tandemlocal"
APP_SECRET = "tandem-local-app-secret"
VERIFICATION_TOKEN = "tandem-local-verification-token"
ENCRYPT_KEY = "tandem-local-encrypt-key"
TENANT_KEY = "tenant-local"
BOT_OPEN_ID = "ou_tandembot"
PEOPLE = {
    "alice": ("ou_alice", "Alice", ["od-eng"]),
    "bob": ("ou_bob", "Bob", ["od-ops"]),
    "carol": ("ou_carol", "Carol", ["od-eng"]),
    "mallory": ("ou_mallory", "Mallory", []),
}


def envelope(payload: dict[str, Any], encrypt_key: str) -> bytes:
    """The body Feishu posts for ``payload`` with an Encrypt Key."""
    padder = padding.PKCS7(128).padder()
    padded = padder.update(json.dumps(payload, ensure_ascii=False).encode()) + padder.finalize()
    iv = os.urandom(16)
    key = hashlib.sha256(encrypt_key.encode()).digest()
    encryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    sealed = base64.b64encode(iv + encryptor.update(padded) + encryptor.finalize()).decode()
    return json.dumps({"encrypt": sealed}).encode()


def sign(timestamp: str, nonce: str, encrypt_key: str, body: bytes) -> str:
    return hashlib.sha256((timestamp + nonce + encrypt_key).encode() + body).hexdigest()


@dataclass
class Posted:
    message_id: str
    chat_id: str
    card: dict[str, Any]
    root_id: str | None = None
    sender: str = BOT_OPEN_ID
    text: str = ""
    uuid: str | None = None
    edits: int = 0


@dataclass
class Answer:
    """The bot's answer to one request: status and JSON body."""

    status: int
    body: dict[str, Any]


@dataclass
class FeishuFake:
    encrypt_key: str = ENCRYPT_KEY
    verification_token: str = VERIFICATION_TOKEN
    tenant_key: str = TENANT_KEY
    events_url: str = ""
    api_url: str = ""
    messages: dict[str, Posted] = field(default_factory=dict)
    ephemerals: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    ephemeral_chats: dict[str, str] = field(default_factory=dict)  # an ephemeral card's message id: its chat
    calls: list[str] = field(default_factory=list)
    tokens: set[str] = field(default_factory=set)
    failures: list[tuple[str, int, int]] = field(default_factory=list)
    """(path part, HTTP status, Feishu code): the next call whose path has that part fails so, once."""
    slow: dict[str, asyncio.Event] = field(default_factory=dict)
    """Path part: a call whose path has it is answered only once its event is set (Feishu slow to answer)."""
    held: list[str] = field(default_factory=list)
    """Calls made to wait so far (method and path), in order."""
    transport: str = "webhook"
    """How people's messages and clicks reach the bot: ``webhook`` (``events_url``) or ``ws`` (the long connection)."""
    connections: int = 0
    """Long connections opened so far."""
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _start: str = field(default_factory=lambda: os.urandom(4).hex())
    """Stamped into every id, so ids (events above all: the bot drops a repeated ``event_id``) are unique across
    restarts of the local Feishu, as real Feishu's are; within one start they still sort in order."""
    _failing: tuple[str, int, int] | None = None
    _socket: web.WebSocketResponse | None = None
    _tickets: set[str] = field(default_factory=set)
    _answers: dict[str, asyncio.Future[frames.Frame]] = field(default_factory=dict)
    _connected: asyncio.Event = field(default_factory=asyncio.Event)

    # --- looking ---------------------------------------------------------------------------

    def thread(self, root_id: str) -> list[Posted]:
        return [m for m in self.messages.values() if m.root_id == root_id]

    def roots(self, chat_id: str) -> list[Posted]:
        return [
            m for m in self.messages.values() if m.chat_id == chat_id and m.root_id is None and m.sender == BOT_OPEN_ID
        ]

    def _new_id(self, prefix: str) -> str:
        return f"{prefix}_{self._start}{next(self._ids):06d}"

    # --- the Open API ----------------------------------------------------------------------

    def app(self) -> web.Application:
        app = web.Application(middlewares=[self._slowly])
        r = app.router
        r.add_post("/open-apis/auth/v3/tenant_access_token/internal", self._token)
        r.add_post("/open-apis/im/v1/messages", self._create)
        r.add_post("/open-apis/im/v1/messages/{id}/reply", self._reply)
        r.add_patch("/open-apis/im/v1/messages/{id}", self._patch)
        r.add_post("/open-apis/interactive/v1/card/update", self._delayed)
        r.add_post("/open-apis/ephemeral/v1/send", self._ephemeral)
        r.add_get("/open-apis/contact/v3/users/{id}", self._user)
        r.add_get("/open-apis/bot/v3/info", self._bot)
        r.add_get("/open-apis/tenant/v2/tenant/query", self._tenant)
        r.add_post("/callback/ws/endpoint", self._endpoint)
        r.add_get("/callback/ws/connect", self._connect)
        FeishuGrants(APP_ID, APP_SECRET, self.tenant_key, PEOPLE).add_routes(app)  # the web sign-in (OAuth)
        return app

    @web.middleware
    async def _slowly(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """A call ``slow`` names waits for its event first."""
        for part, answered in list(self.slow.items()):
            if part in request.path and not answered.is_set():
                self.held.append(f"{request.method} {request.path}")
                await answered.wait()
        return await handler(request)

    async def _token(self, request: web.Request) -> web.Response:
        body = await request.json()
        if body.get("app_id") != APP_ID or body.get("app_secret") != APP_SECRET:
            return web.json_response({"code": 10014, "msg": "app secret invalid"})
        token = f"t-{self._new_id('tok')}"
        self.tokens.add(token)
        return web.json_response({"code": 0, "msg": "ok", "tenant_access_token": token, "expire": 7200})

    def _authorized(self, request: web.Request) -> bool:
        self.calls.append(f"{request.method} {request.path}")
        self._failing = next((f for f in self.failures if f[0] in request.path), None)
        if self._failing is not None:
            self.failures.remove(self._failing)
            return False
        return request.headers.get("Authorization", "").removeprefix("Bearer ") in self.tokens

    def _denied(self) -> web.Response:
        if self._failing is not None:
            _, status, code = self._failing
            headers = {"Retry-After": "0.1"} if status == 429 else None
            return web.json_response({"code": code, "msg": "injected failure"}, status=status, headers=headers)
        return web.json_response({"code": 99991663, "msg": "Invalid access token"}, status=400)

    def _dedup(self, uuid: str | None) -> Posted | None:
        return next((m for m in self.messages.values() if uuid and m.uuid == uuid), None)

    @staticmethod
    def _card(body: dict[str, Any]) -> dict[str, Any] | None:
        if body.get("msg_type") != "interactive":
            return None
        card = json.loads(body.get("content") or "{}")
        return card if isinstance(card, dict) and card.get("schema") == "2.0" else None

    async def _create(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._denied()
        body = await request.json()
        if _too_long(body.get("content")):
            return _content_too_long()
        card = self._card(body)
        if card is None:
            return web.json_response({"code": 230001, "msg": "invalid card"}, status=400)
        earlier = self._dedup(body.get("uuid"))
        if earlier is None:
            earlier = Posted(self._new_id("om"), str(body.get("receive_id")), card, uuid=body.get("uuid"))
            self.messages[earlier.message_id] = earlier
        return web.json_response({"code": 0, "data": {"message_id": earlier.message_id, "chat_id": earlier.chat_id}})

    async def _reply(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._denied()
        parent = self.messages.get(request.match_info["id"])
        body = await request.json()
        if _too_long(body.get("content")):
            return _content_too_long()
        card, text = self._card(body), _text(body)
        if parent is None or (card is None and text is None):
            return web.json_response({"code": 230001, "msg": "unknown message or invalid card"}, status=400)
        earlier = self._dedup(body.get("uuid"))
        if earlier is None:
            root = parent.root_id or parent.message_id
            posted = Posted(self._new_id("om"), parent.chat_id, card or {}, root_id=root, uuid=body.get("uuid"))
            earlier = posted if text is None else replace(posted, text=text)
            self.messages[earlier.message_id] = earlier
        return web.json_response({"code": 0, "data": {"message_id": earlier.message_id}})

    async def _patch(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._denied()
        posted = self.messages.get(request.match_info["id"])
        content = (await request.json()).get("content") or "{}"
        if _too_long(content):
            return _content_too_long()
        card = json.loads(content)
        if posted is None or not isinstance(card, dict) or card.get("schema") != "2.0":
            return web.json_response({"code": 230001, "msg": "unknown message or invalid card"}, status=400)
        posted.card, posted.edits = card, posted.edits + 1
        return web.json_response({"code": 0, "data": {}})

    async def _delayed(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._denied()
        return web.json_response({"code": 0, "msg": "ok"})

    async def _ephemeral(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._denied()
        body = await request.json()
        self.ephemerals.append((str(body.get("chat_id")), str(body.get("open_id")), dict(body.get("card") or {})))
        message_id = self._new_id("om")
        self.ephemeral_chats[message_id] = str(body.get("chat_id"))
        return web.json_response({"code": 0, "data": {"message_id": message_id}})

    async def _user(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._denied()
        open_id = request.match_info["id"]
        for oid, name, departments in PEOPLE.values():
            if oid == open_id:
                user = {"open_id": oid, "name": name, "department_ids": departments}
                return web.json_response({"code": 0, "data": {"user": user}})
        return web.json_response({"code": 41050, "msg": "no such user"}, status=400)

    async def _bot(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._denied()
        return web.json_response({"code": 0, "bot": {"open_id": BOT_OPEN_ID, "app_name": "Tandem"}})

    async def _tenant(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._denied()
        return web.json_response({"code": 0, "data": {"tenant": {"tenant_key": self.tenant_key, "name": "Local"}}})

    # --- the long connection ---------------------------------------------------------------

    async def _endpoint(self, request: web.Request) -> web.Response:
        body = await request.json()
        if body.get("AppID") != APP_ID or body.get("AppSecret") != APP_SECRET:
            return web.json_response({"code": 10014, "msg": "app id or secret invalid"})
        ticket = self._new_id("ticket")
        self._tickets.add(ticket)
        url = f"ws://{request.host}/callback/ws/connect?device_id={ticket}&service_id=1&ticket={ticket}"
        config = {"ReconnectCount": -1, "ReconnectInterval": 1, "ReconnectNonce": 0, "PingInterval": 120}
        return web.json_response({"code": 0, "msg": "ok", "data": {"URL": url, "ClientConfig": config}})

    async def _connect(self, request: web.Request) -> web.StreamResponse:
        ticket = request.query.get("ticket", "")
        if ticket not in self._tickets:
            return web.json_response({"code": 403, "msg": "unknown ticket"}, status=403)
        self._tickets.discard(ticket)
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        self._socket, self.connections = socket, self.connections + 1
        self._connected.set()
        try:
            async for message in socket:
                if message.type != aiohttp.WSMsgType.BINARY:
                    continue
                frame = frames.decode(message.data)
                if frame.method == frames.CONTROL and frame.headers.get("type") == "ping":
                    await socket.send_bytes(encode_control("pong", frame.service))
                elif frame.method == frames.DATA:
                    waiting = self._answers.pop(frame.headers.get("message_id", ""), None)
                    if waiting is not None and not waiting.done():
                        waiting.set_result(frame)
        finally:
            if self._socket is socket:
                self._socket = None
                self._connected.clear()
        return socket

    async def connected(self, within: float = 20.0) -> None:
        """Wait until a long connection is open."""
        async with asyncio.timeout(within):
            await self._connected.wait()

    async def push(self, payload: dict[str, Any], within: float = 15.0) -> Answer:
        """Send ``payload`` over the long connection; the client's answer frame becomes the answer."""
        await self.connected()
        socket = self._socket
        assert socket is not None
        message_id = self._new_id("msg")
        # Card callbacks (``card.action.trigger``, schema 2.0) travel as event frames too.
        headers = {"type": "event", "message_id": message_id, "trace_id": message_id, "sum": "1", "seq": "0"}
        data = json.dumps(payload, ensure_ascii=False).encode()
        answered = asyncio.get_running_loop().create_future()
        self._answers[message_id] = answered
        await socket.send_bytes(frames.encode(frames.Frame(method=frames.DATA, headers=headers, payload=data)))
        async with asyncio.timeout(within):
            frame = await answered
        reply = json.loads(frame.payload)
        inner = reply.get("data")
        body = json.loads(base64.b64decode(inner)) if inner else {}
        return Answer(int(reply.get("code", 0)), body if isinstance(body, dict) else {})

    async def close_connection(self) -> None:
        if self._socket is not None:
            await self._socket.close()

    # --- people ----------------------------------------------------------------------------

    def _header(self, event_type: str, event_id: str | None, tenant: str | None) -> dict[str, Any]:
        return {
            "event_id": event_id or self._new_id("ev"),
            "event_type": event_type,
            "create_time": str(int(time.time() * 1000)),
            "token": self.verification_token,
            "app_id": APP_ID,
            "tenant_key": tenant or self.tenant_key,
        }

    def message_event(
        self,
        person: str,
        chat_id: str,
        text: str,
        *,
        root_id: str | None = None,
        mention_bot: bool = True,
        chat_type: str = "group",
        event_id: str | None = None,
        tenant: str | None = None,
    ) -> dict[str, Any]:
        """``im.message.receive_v1`` for ``person`` writing ``text`` (after an @-mention of the bot)."""
        open_id = PEOPLE[person][0]
        mentions = [{"key": "@_user_1", "id": {"open_id": BOT_OPEN_ID}, "name": "Tandem"}] if mention_bot else []
        typed = f"@_user_1 {text}" if mention_bot else text
        message_id = self._new_id("om")
        self.messages[message_id] = Posted(message_id, chat_id, {}, root_id=root_id, sender=open_id, text=text)
        message = {
            "message_id": message_id,
            "root_id": root_id,
            "parent_id": root_id,
            "chat_id": chat_id,
            "chat_type": chat_type,
            "message_type": "text",
            "content": json.dumps({"text": typed}, ensure_ascii=False),
            "mentions": mentions,
        }
        sender = {"sender_id": {"open_id": open_id}, "sender_type": "user", "tenant_key": self.tenant_key}
        event = {"sender": sender, "message": message}
        return {"schema": "2.0", "header": self._header("im.message.receive_v1", event_id, tenant), "event": event}

    def click_event(
        self,
        person: str,
        message_id: str,
        value: dict[str, Any],
        form_value: dict[str, Any] | None = None,
        *,
        event_id: str | None = None,
        tenant: str | None = None,
    ) -> dict[str, Any]:
        """``card.action.trigger`` for ``person`` clicking a button (or submitting a form) on a card."""
        chat = self.messages[message_id].chat_id if message_id in self.messages else self.ephemeral_chats[message_id]
        action: dict[str, Any] = {"value": value, "tag": "button"}
        if form_value is not None:
            action["form_value"] = form_value
        event = {
            "operator": {"open_id": PEOPLE[person][0], "tenant_key": self.tenant_key},
            "token": f"c-{self._new_id('cb')}",
            "action": action,
            "host": "im_message",
            "context": {"open_message_id": message_id, "open_chat_id": chat},
        }
        return {"schema": "2.0", "header": self._header("card.action.trigger", event_id, tenant), "event": event}

    async def deliver(
        self, payload: dict[str, Any], *, signed: bool = True, age: float = 0.0, key: str | None = None
    ) -> Answer:
        """Post ``payload`` to the bot as Feishu does; ``signed=False``, ``age`` and ``key`` forge it.

        Over the long connection (``transport="ws"``) the payload goes as a data frame instead.
        """
        if self.transport == "ws":
            return await self.push(payload)
        body = envelope(payload, key or self.encrypt_key)
        stamp, nonce = str(int(time.time() - age)), os.urandom(8).hex()
        headers = {"Content-Type": "application/json", "X-Lark-Request-Timestamp": stamp, "X-Lark-Request-Nonce": nonce}
        headers["X-Lark-Signature"] = sign(stamp, nonce, self.encrypt_key if signed else "forged", body)
        async with aiohttp.ClientSession() as session:
            async with session.post(self.events_url, data=body, headers=headers) as resp:
                text = await resp.text()
                return Answer(resp.status, json.loads(text) if text else {})

    async def say(self, person: str, chat_id: str, text: str, **options: Any) -> Answer:
        return await self.deliver(self.message_event(person, chat_id, text, **options))

    async def click(
        self, person: str, message_id: str, action: str, form_value: dict[str, Any] | None = None, **match: Any
    ) -> Answer:
        """Click the card button whose value has ``action`` (and ``match``); the answer's card replaces it."""
        return await self.click_value(person, message_id, self.button(message_id, action, **match), form_value)

    async def click_value(
        self, person: str, message_id: str, value: dict[str, Any], form_value: dict[str, Any] | None = None
    ) -> Answer:
        """Click the button with callback ``value``; the answer's card replaces the clicked one."""
        answer = await self.deliver(self.click_event(person, message_id, value, form_value))
        card = answer.body.get("card")
        if (
            answer.status == 200
            and isinstance(card, dict)
            and card.get("type") == "raw"
            and message_id in self.messages
        ):
            self.messages[message_id].card = card["data"]  # (an ephemeral card is the asker's own: not kept here)
        return answer

    def button(self, message_id: str, action: str, **match: Any) -> dict[str, Any]:
        for value in button_values(self.messages[message_id].card):
            if value.get("action") == action and all(value.get(k) == v for k, v in match.items()):
                return value
        raise AssertionError(f"no {action} button on {message_id}: {button_values(self.messages[message_id].card)}")


def encode_control(kind: str, service: int) -> bytes:
    return frames.encode(frames.Frame(method=frames.CONTROL, headers={"type": kind}, service=service))


def button_values(card: dict[str, Any]) -> list[dict[str, Any]]:
    """Every callback value on a card's buttons (forms included), in order."""
    found: list[dict[str, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("tag") == "button":
                found.extend(b["value"] for b in node.get("behaviors", []) if isinstance(b.get("value"), dict))
            for inner in node.values():
                walk(inner)
        elif isinstance(node, list):
            for inner in node:
                walk(inner)

    walk(card)
    return found


def card_text(card: dict[str, Any]) -> str:
    """Everything a person reads on a card."""
    parts: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key in ("content",):
                if isinstance(node.get(key), str):
                    parts.append(node[key])
            if node.get("tag") == "table":  # a table component: its header, then each row, cells apart by tabs
                names = [str(c.get("name")) for c in node.get("columns", [])]
                parts.append("\t".join(str(c.get("display_name", "")) for c in node.get("columns", [])))
                parts.extend("\t".join(str(row.get(n, "")) for n in names) for row in node.get("rows", []))
            for inner in node.values():
                walk(inner)
        elif isinstance(node, list):
            for inner in node:
                walk(inner)

    walk(card)
    return "\n".join(parts)


Page = Callable[[web.Application, "FeishuFake"], None]
"""Adds a page to the fake's web app (the chat page people click in, beside its API)."""


@asynccontextmanager
async def run_feishu(
    *, host: str = "127.0.0.1", port: int = 0, page: Page | None = None, **fields: Any
) -> AsyncIterator[FeishuFake]:
    """A fake Feishu on a local port (0: a free one) until the block ends (set ``events_url`` to reach
    the bot); ``page`` also serves a chat page on it (:func:`workspace.feishu_page.add_page`)."""
    fake = FeishuFake(**fields)
    app = fake.app()
    if page is not None:
        page(app, fake)
    async with serve(app, host=host, port=port) as url:
        fake.api_url = url
        try:
            yield fake
        finally:  # no call is left waiting for a test that ended
            for answered in fake.slow.values():
                answered.set()


MAX_CARD_BYTES = 30 * 1024
"""Feishu refuses a card message whose content is over 30 KB."""


def _too_long(content: Any) -> bool:
    return isinstance(content, str) and len(content.encode()) > MAX_CARD_BYTES


def _text(body: dict[str, Any]) -> str | None:
    """A text message's text (``msg_type`` text), or None for anything else."""
    if body.get("msg_type") != "text":
        return None
    content = json.loads(body.get("content") or "{}")
    text = content.get("text") if isinstance(content, dict) else None
    return text if isinstance(text, str) and text else None


def _content_too_long() -> web.Response:
    return web.json_response({"code": 230025, "msg": "message content is too long"}, status=400)
