"""Writes made side by side, committed together: one transaction (one sync to disk) for all of them.

Every click is kept in the inbox before its ack (:mod:`agent.inbox`), and a kept row must be on disk
before the ack goes out. One transaction per row made the database thread sync once per click: in a
burst of clicks, each ack waited in line behind every earlier click's sync. :class:`Grouped` hands the
database thread all rows that arrived while it was busy, as one transaction; each caller still gets its
own answer, and only once the transaction holding its row has committed. A failed transaction fails
every call in it (nothing of it was written), as a call of its own would have.

:func:`each_in_one` does the same for writes of any kind (a run's transition, a new run, an outbox row's
claim): each in a savepoint of one transaction, so one call's refusal (a run moved on, a row claimed by
someone else) rolls back that call alone, and the others share one sync. A served bot's runtime makes its
durable writes this way (:class:`storage.facade.AsyncStore`): under load its loop had waited for one sync
per write, one after another.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from typing import Any, Generic, TypeVar

from storage.database import Database
from storage.db import write_transaction

A = TypeVar("A")
R = TypeVar("R")


class Grouped(Generic[A, R]):
    """``await grouped(arg)``: ``write([arg, ...])[i]``, with ``write`` run on ``executor`` for every call
    waiting when it starts (``write`` commits its arguments in one transaction and answers each in order;
    an answer that is an exception is raised to its caller alone).

    Without an executor, ``write`` runs on the caller's own loop (the thread owning the connection), once
    every task already due there has had its turn: the writes they make meanwhile join the same call."""

    def __init__(self, write: Callable[[Sequence[A]], Sequence[R | BaseException]], executor: Executor | None) -> None:
        self.write, self.executor = write, executor
        self.batches = 0
        """Transactions made (a test and a bench look at it)."""
        self.written = 0
        """Calls written (with :attr:`batches`: how many shared a transaction)."""
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
            if self.executor is None:
                loop.call_soon(self._flush)
            else:
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
            self.written += len(calls)
        for (_, loop, future), result in zip(calls, results, strict=True):
            _answer(loop, future, result)


def each_in_one(db: Database, calls: Sequence[Callable[[], Any]]) -> list[Any]:
    """Run ``calls`` in one transaction, each in a savepoint: a call's exception is its answer, and it rolls
    back that call's writes alone. If the transaction itself cannot be had or kept (an error that ended it,
    a commit that failed), nothing of it was written, and each call runs again on its own: the outcome is
    always that of the calls made one after another."""
    if len(calls) == 1:
        return [_alone(calls[0])]
    outcomes: list[Any] = []
    try:
        with write_transaction(db):
            for call in calls:
                try:
                    with db.atomic():
                        outcomes.append(call())
                except Exception as exc:  # noqa: BLE001 -- the call's own answer
                    if not db.conn.in_transaction:
                        raise _Ended from exc
                    outcomes.append(exc)
    except Exception:  # noqa: BLE001 -- nothing was written: as if each had come alone
        return [_alone(call) for call in calls]
    return outcomes


class _Ended(Exception):
    """A call's error ended the shared transaction."""


def _alone(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except Exception as exc:  # noqa: BLE001 -- handed to its caller
        return exc


def _answer(loop: asyncio.AbstractEventLoop, future: asyncio.Future[R], outcome: R | BaseException) -> None:
    if _on(loop):
        _settle(future, outcome)
    elif not loop.is_closed():
        loop.call_soon_threadsafe(_settle, future, outcome)


def _on(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


def _settle(future: asyncio.Future[R], outcome: R | BaseException) -> None:
    if future.done():  # its caller was cancelled
        return
    if isinstance(outcome, BaseException):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)
