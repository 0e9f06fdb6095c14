"""The runtime's own event loop, on its own thread: runtime work never queues in front of an ack.

A channel's server answers each request (a click, a slash command) within milliseconds on its
event loop. Transitions, tool and model calls and outbox deliveries are work of another
size; on the same loop, every ack would wait behind them. So a served bot runs them on a
:class:`RuntimeLoop`: whoever calls a runtime entry point from another loop awaits its result
there (:func:`at_home`), and a store tied to the loop that opened it (a PostgreSQL pool) is
reached from other loops through :func:`forwarded`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import inspect
import logging
import math
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar, cast

__all__ = ["Acks", "RuntimeLoop", "at_home", "forwarded"]

log = logging.getLogger("tandem.runtime")

SWITCH_INTERVAL = 0.0005
"""Seconds a busy thread keeps the interpreter while another waits for it (Python's default is 0.005).
The thread that acks wakes up for every request; each time it may wait for the runtime's thread
to let go, so while a runtime loop runs the process switches ten times as often."""

P = ParamSpec("P")
T = TypeVar("T")


class RuntimeLoop:
    """An event loop running on a thread of its own until :meth:`stop`."""

    def __init__(self, name: str = "tandem-runtime") -> None:
        self.name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            raise RuntimeError("the runtime loop is not running")
        return self._loop

    def here(self) -> bool:
        """Whether the caller runs on this loop."""
        try:
            return asyncio.get_running_loop() is self._loop
        except RuntimeError:
            return False

    def start(self) -> RuntimeLoop:
        ready = threading.Event()

        def serve() -> None:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            self._loop = loop
            ready.set()
            try:
                loop.run_forever()
                left = asyncio.all_tasks(loop)
                for task in left:
                    task.cancel()
                loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
                loop.run_until_complete(loop.shutdown_asyncgens())
                loop.run_until_complete(loop.shutdown_default_executor())
            finally:
                loop.close()

        self._thread = threading.Thread(target=serve, name=self.name, daemon=True)
        self._thread.start()
        ready.wait()
        return self

    def stop(self) -> None:
        """Stop the loop (what still runs on it is cancelled) and wait for its thread."""
        if self._thread is None or self._loop is None:
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._thread, self._loop = None, None

    @classmethod
    @asynccontextmanager
    async def running(
        cls, name: str = "tandem-runtime", switch_interval: float | None = SWITCH_INTERVAL
    ) -> AsyncIterator[RuntimeLoop]:
        """A started loop, stopped when the block ends; ``switch_interval`` (None: as it is) is the
        process's while the loop runs."""
        before = sys.getswitchinterval()
        if switch_interval is not None:
            sys.setswitchinterval(switch_interval)
        home = cls(name).start()
        try:
            yield home
        finally:
            await asyncio.to_thread(home.stop)
            sys.setswitchinterval(before)

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Run ``coro`` on this loop (from any thread); its result comes back through the future."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    async def call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await ``coro`` on this loop; the caller's loop stays free meanwhile. Cancelling the caller
        cancels the work."""
        if self.here():
            return await coro
        future = self.submit(coro)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()
            raise

    @asynccontextmanager
    async def context(self, manager: AbstractAsyncContextManager[T]) -> AsyncIterator[T]:
        """Enter and leave ``manager`` on this loop (what it opens belongs to this loop)."""
        value = await self.call(manager.__aenter__())
        try:
            yield value
        except BaseException as exc:
            if not await self.call(manager.__aexit__(type(exc), exc, exc.__traceback__)):
                raise
        else:
            await self.call(manager.__aexit__(None, None, None))


QUIET = 0.02
"""Seconds with no request open before work that waited goes ahead."""
PATIENCE = 1.0
"""Seconds work that can wait yields to requests being answered, at most (then it goes ahead)."""


class Acks:
    """The requests a channel's server is answering right now, and work that waits for them.

    One interpreter runs the server's loop and the runtime's, so while a run's next step, a
    click's processing or a delivery holds the interpreter, an ack waits for it. A chat platform gives
    an ack 3 s and nothing else a deadline: work that can wait (:meth:`calm`) starts once no request has
    been open for ``quiet`` seconds, or after ``patience`` seconds whichever comes first, so a burst of
    clicks is answered first and worked through after (its clients send their next request a moment
    after each ack: work let go in that moment would hold up the rest). With requests one at a time,
    work waits ``quiet`` seconds after each. The server calls :meth:`opened` and :meth:`closed` on its own
    loop; :meth:`calm` may be awaited on any loop.
    """

    def __init__(self, patience: float = PATIENCE, quiet: float = QUIET) -> None:
        self.patience = patience
        self.quiet = quiet
        self.open = 0
        self.waited = 0
        """How many times work waited (it found a request open, or one opened a moment ago)."""
        self._last_open = -math.inf
        self._server: asyncio.AbstractEventLoop | None = None
        self._checking = False
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._lock = threading.Lock()

    def opened(self) -> None:
        self.open += 1
        self._last_open = time.monotonic()
        self._server = asyncio.get_running_loop()

    def closed(self) -> None:
        self.open -= 1
        if self.open == 0 and self._waiters:
            self._check_later()

    def busy(self) -> bool:
        """Whether a request is open, or one opened less than ``quiet`` seconds ago (more may follow)."""
        return bool(self.open) or time.monotonic() - self._last_open < self.quiet

    def _check_later(self) -> None:
        """On the server's loop: let the waiting work go once ``quiet`` has passed with no request."""
        if not self._checking and self._server is not None:
            self._checking = True
            left = self._last_open + self.quiet - time.monotonic()
            self._server.call_later(max(left, 0.0), self._release_if_quiet)

    def _release_if_quiet(self) -> None:
        self._checking = False
        if self.open:
            return  # the last request to close checks again
        if time.monotonic() - self._last_open < self.quiet:
            self._check_later()  # one came and went meanwhile
            return
        with self._lock:
            waiters, self._waiters = self._waiters, []
        for loop, future in waiters:
            if not loop.is_closed():
                loop.call_soon_threadsafe(_resolve, future)

    async def calm(self) -> None:
        """Return once no request has been open for ``quiet`` seconds, or after ``patience`` seconds."""
        if not self.busy():
            return
        self.waited += 1
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            self._waiters.append((loop, future))
        if not self.busy():  # the quiet passed before we were listed
            return
        server = self._server
        if not self.open and server is not None and not server.is_closed():
            server.call_soon_threadsafe(self._check_later)  # the last close found no work waiting
        try:
            async with asyncio.timeout(self.patience):
                await future
        except TimeoutError:
            with self._lock:
                self._waiters = [w for w in self._waiters if w[1] is not future]


@dataclass(frozen=True)
class AllCalm:
    """Work that yields to the requests of several doors: :meth:`calm` returns once each of ``parts`` is calm
    (each for at most its own patience)."""

    parts: tuple[Acks, ...]

    async def calm(self) -> None:
        for acks in self.parts:
            await acks.calm()


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class _Homed(Protocol):
    @property
    def home(self) -> RuntimeLoop | None: ...  # an attribute, or a property that asks another object


H = TypeVar("H", bound=_Homed)


def at_home(
    method: Callable[Concatenate[H, P], Coroutine[Any, Any, T]],
) -> Callable[Concatenate[H, P], Coroutine[Any, Any, T]]:
    """A method that runs on its object's ``home`` loop, whichever loop calls it (as written when ``home`` is None)."""

    @functools.wraps(method)
    async def hop(self: H, /, *args: P.args, **kwargs: P.kwargs) -> T:
        home = self.home
        if home is None or home.here():
            return await method(self, *args, **kwargs)
        return await home.call(method(self, *args, **kwargs))

    return hop


class _Forwarded:
    def __init__(self, target: object, home: RuntimeLoop) -> None:
        self._target = target
        self._home = home

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if not inspect.iscoroutinefunction(value):
            return value
        home = self._home

        @functools.wraps(value)
        async def forward(*args: Any, **kwargs: Any) -> Any:
            return await home.call(value(*args, **kwargs))

        return forward


def forwarded(home: RuntimeLoop, target: T) -> T:
    """``target`` (a store) as seen from other loops: each of its coroutine methods runs on ``home``."""
    return cast(T, _Forwarded(target, home))
