"""Socket Mode on the workspace's side: the app opens connections, and each event goes to one of them.

As in Slack: ``apps.connections.open`` (called with the app-level token) answers a WebSocket URL;
the app connects and gets ``hello``; every event, interaction and slash command then goes, as an
envelope (``envelope_id``, ``type``, ``payload``), to **one** of the app's open connections picked
at random, and the app acknowledges it by sending back ``{"envelope_id": …, "payload": …}``.
An envelope nobody acknowledges within the ack timeout is ``operation_timeout``, as over HTTP.
"""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from workspace.errors import ScenarioError
from workspace.transport import Delivery, Kind

APP_TOKEN = "xapp-tandem-local"
PATH = "/socket-mode/link"

_TYPES: dict[Kind, str] = {
    "event_callback": "events_api",
    "slash_command": "slash_commands",
    "block_actions": "interactive",
    "block_suggestion": "interactive",
    "view_submission": "interactive",
    "view_closed": "interactive",
}


@dataclass
class SocketHub:
    """The app's open Socket Mode connections, by number, and the envelopes waiting for their ack."""

    on_change: Callable[[], None] = lambda: None  # told when a connection opens or closes
    rng: random.Random = field(default_factory=random.Random)
    connections: dict[int, web.WebSocketResponse] = field(default_factory=dict)
    opened: int = 0
    waiting: dict[str, asyncio.Future[dict[str, Any] | None]] = field(default_factory=dict)

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get(PATH, self._link)

    @property
    def connected(self) -> int:
        return len(self.connections)

    async def _link(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()  # answers the client's pings (slack_sdk checks them)
        await ws.prepare(request)
        self.opened += 1
        number = self.opened
        self.connections[number] = ws
        hello = {"type": "hello", "num_connections": len(self.connections), "connection_info": {"app_id": "A0TANDEM"}}
        await ws.send_json(hello)
        self.on_change()
        try:
            async for message in ws:
                if message.type != WSMsgType.TEXT:
                    continue
                ack = json.loads(message.data)
                waiter = self.waiting.pop(str(ack.get("envelope_id")), None)
                if waiter is not None and not waiter.done():
                    payload = ack.get("payload")
                    waiter.set_result(payload if isinstance(payload, dict) else None)
        finally:
            self.connections.pop(number, None)
            self.on_change()
        return ws

    async def send(self, kind: Kind, sent: dict[str, Any], *, ack_timeout: float) -> Delivery:
        """Hand ``sent`` to one open connection at random; the answer is its ack's payload."""
        if kind not in _TYPES:
            raise ScenarioError(f"{kind} cannot be sent over Socket Mode")
        if not self.connections:
            raise ScenarioError("no Socket Mode connection: start the app with an app-level token first")
        number = self.rng.choice(sorted(self.connections))
        envelope_id = uuid.uuid4().hex
        envelope = {
            "envelope_id": envelope_id,
            "type": _TYPES[kind],
            "payload": sent,
            "accepts_response_payload": kind != "event_callback",
            "retry_attempt": 0,
            "retry_reason": "",
        }
        waiter: asyncio.Future[dict[str, Any] | None] = asyncio.get_running_loop().create_future()
        self.waiting[envelope_id] = waiter
        headers = {"X-Socket-Connection": str(number)}
        try:
            await self.connections[number].send_json(envelope)
            async with asyncio.timeout(ack_timeout):
                payload = await waiter
        except TimeoutError:
            return Delivery(kind=kind, status=0, body="", sent=sent, headers=headers, error="operation_timeout")
        finally:
            self.waiting.pop(envelope_id, None)
        body = json.dumps(payload) if payload else ""
        return Delivery(kind=kind, status=200, body=body, sent=sent, headers=headers)

    async def close(self) -> None:
        for ws in list(self.connections.values()):
            await ws.close()


def wss_url(site: str) -> str:
    """The WebSocket URL ``apps.connections.open`` answers, on the workspace's own server."""
    return site.replace("http://", "ws://", 1).replace("https://", "wss://", 1) + PATH
