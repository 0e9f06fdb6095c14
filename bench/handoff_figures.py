"""What both halves of :mod:`bench.handoffs` share: the figures, the webhook receiver, bounded concurrency."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from api.webhooks import verify
from bench.results import percentile

CONCURRENCY = 20


@dataclass
class Figures:
    """One target's timings, in seconds."""

    target: str
    creates: list[float] = field(default_factory=list)
    to_message: list[float] = field(default_factory=list)
    to_webhook: list[float] = field(default_factory=list)
    wall: float = 0.0
    forged: int = 0
    errors: int = 0  # 5xx answers tried again

    @property
    def throughput(self) -> float:
        return len(self.to_webhook) / self.wall if self.wall else 0.0

    def line(self) -> str:
        def ms(xs: list[float], q: float) -> str:
            return f"{percentile(xs, q) * 1000:8.1f}" if xs else "       -"

        return (
            f"{self.target:<22} {ms(self.creates, 50)} {ms(self.creates, 99)} {ms(self.to_message, 50)} "
            f"{ms(self.to_message, 99)} {ms(self.to_webhook, 50)} {ms(self.to_webhook, 99)} {self.throughput:9.1f}"
        )


HEADER = (
    f"{'target':<22} {'create':>8} {'p99':>8} {'→thread':>8} {'p99':>8} {'click→hook':>8} {'p99':>8} {'handoffs/s':>9}"
    "\n" + " " * 22 + "  (ms: p50 and p99)"
)


class Receiver:
    """The webhook receiver: when each handoff's signed POST arrived (unsigned or forged ones are counted apart)."""

    def __init__(self, secret: str, id_of: Callable[[dict[str, Any]], str], check: bool = True) -> None:
        self.secret, self.id_of, self.check = secret, id_of, check
        self.received: dict[str, float] = {}
        self.forged = 0
        self.changed = asyncio.Event()

    async def handle(self, request: web.Request) -> web.Response:
        body = await request.read()
        if self.check and not verify(self.secret, request.headers, body):
            self.forged += 1
            return web.Response(status=401)
        self.received.setdefault(self.id_of(json.loads(body)), time.perf_counter())
        self.changed.set()
        return web.Response(status=204)

    async def until(self, count: int, within: float) -> None:
        deadline = time.perf_counter() + within
        while len(self.received) < count:
            self.changed.clear()
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"{len(self.received)} of {count} webhooks arrived within {within:.0f} s")
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except TimeoutError:
                pass


@asynccontextmanager
async def receiving(receiver: Receiver) -> AsyncIterator[str]:
    app = web.Application()
    app.router.add_post("/hook", receiver.handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}/hook"
    finally:
        await runner.cleanup()


async def bounded(n: int, work: Callable[[int], Awaitable[None]], concurrency: int = CONCURRENCY) -> None:
    """``work(i)`` for i in range(n), at most ``concurrency`` at a time."""
    queue = iter(range(n))

    async def worker() -> None:
        for i in queue:
            await work(i)

    await asyncio.gather(*(worker() for _ in range(min(concurrency, n))))


def prompt(i: int) -> str:
    return f"Handoff {i}: roll back checkout?"
