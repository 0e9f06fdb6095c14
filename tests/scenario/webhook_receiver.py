"""A webhook receiver on 127.0.0.1 for tests: it checks each POST with :func:`api.webhooks.verify` (the README's
check) and keeps what came, answering with the statuses it is given in turn, then 200."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from api.webhooks import verify


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    verified: bool

    @property
    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Receiver:
    secret: str
    answers: list[int] = field(default_factory=list)
    """Statuses to answer, one per POST, before answering 200."""
    received: list[Received] = field(default_factory=list)
    url: str = ""
    hold: int = 0
    """How many POSTs (the first ones) are left unanswered until the receiver stops."""
    _came: asyncio.Event = field(default_factory=asyncio.Event)
    _stopping: asyncio.Event = field(default_factory=asyncio.Event)

    async def posts(self, count: int, within: float = 15.0) -> list[Received]:
        """The POSTs received, once there are ``count`` of them (TimeoutError after ``within`` seconds)."""
        async with asyncio.timeout(within):
            while len(self.received) < count:
                self._came.clear()
                await self._came.wait()
        return self.received

    async def hook(self, request: web.Request) -> web.Response:
        body = await request.read()
        self.received.append(Received(dict(request.headers), body, verify(self.secret, request.headers, body)))
        self._came.set()
        if len(self.received) <= self.hold:
            await self._stopping.wait()
        status = self.answers.pop(0) if self.answers else 200
        return web.Response(status=status, text="ok" if status < 300 else "not now")


@asynccontextmanager
async def receiving(secret: str, answers: list[int] | None = None, *, hold: int = 0) -> AsyncIterator[Receiver]:
    receiver = Receiver(secret, list(answers or []), hold=hold)
    app = web.Application()
    app.router.add_post("/hook", receiver.hook)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    receiver.url = f"http://127.0.0.1:{port}/hook"
    try:
        yield receiver
    finally:
        receiver._stopping.set()
        await runner.cleanup()
