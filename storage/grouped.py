"""Writes made side by side, committed together: one transaction (one sync to disk) for all of them.

Every click is kept in the inbox before its ack (:mod:`agent.inbox`), and a kept row must be on disk
before the ack goes out. One transaction per row made the database thread sync once per click: in a
burst of clicks, each ack waited in line behind every earlier click's sync. :class:`Grouped` hands the
database thread all rows that arrived while it was busy, as one transaction; each caller still gets its
own answer, and only once the transaction holding its row has committed. A failed transaction fails
every call in it (nothing of it was written), as a call of its own would have.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from typing import Generic, TypeVar

A = TypeVar("A")
R = TypeVar("R")


class Grouped(Generic[A, R]):
    """``await grouped(arg)``: ``write([arg, ...])[i]``, with ``write`` run on ``executor`` for every call
    waiting when it starts (``write`` commits its arguments in one transaction and answers each in order)."""

    def __init__(self, write: Callable[[Sequence[A]], Sequence[R]], executor: Executor) -> None:
        self.write, self.executor = write, executor
        self.batches = 0
        """Transactions made (a test and a bench look at it)."""
        self._waiting: list[tuple[A, asyncio.AbstractEventLoop, asyncio.Future[R]]] = []
        self._queued = False
        self._lock = threading.Lock()

    async def __call__(self, arg: A) -> R:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[R] = loop.create_future()
        with self._lock:
            self._waiting.append((arg, loop, future))
            queue, self._queued = not self._queued, True
        if queue:
            self.executor.submit(self._flush)
        return await future

    def _flush(self) -> None:
        """On the executor's thread: write what waits now; later calls queue another flush behind this one."""
        with self._lock:
            calls, self._waiting, self._queued = self._waiting, [], False
        try:
            results = self.write([arg for arg, _, _ in calls])
        except BaseException as exc:  # noqa: BLE001 -- handed to each caller, as its own call would raise it
            for _, loop, future in calls:
                _answer(loop, future, exc)
            return
        finally:
            self.batches += 1
        for (_, loop, future), result in zip(calls, results, strict=True):
            _answer(loop, future, result)


def _answer(loop: asyncio.AbstractEventLoop, future: asyncio.Future[R], outcome: R | BaseException) -> None:
    if not loop.is_closed():
        loop.call_soon_threadsafe(_settle, future, outcome)


def _settle(future: asyncio.Future[R], outcome: R | BaseException) -> None:
    if future.done():  # its caller was cancelled
        return
    if isinstance(outcome, BaseException):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)
