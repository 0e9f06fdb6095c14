"""The inbox: what a person did is kept before it is acknowledged, and applied from there.

A channel answers a click, a form, a thread reply or a card callback within its platform's
3 s, before the work it causes is done. So the request is first stored as an inbox row
(:meth:`~agent.ports.InboxStore.receive_inbound`, keyed by a stable id from the platform's
payload: a second delivery of the same request finds its key taken and changes nothing), then
acknowledged, then processed. The row is marked done once every piece of work the request
started has ended (:class:`Receipt`); work that failed or was cut short by a dying process
leaves it pending.

A pending row is held by a short lease that its process renews while the work runs. Once the
lease runs out (its process died), any process serving that platform claims the row
(:func:`recover`: at start-up, then every few seconds; of two claims on one row only one wins)
and replays it through the same handlers. Replaying is safe: a decision already stored makes
the use case refuse the stale one, so a row applied twice changes nothing the second time.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Protocol, TypeVar

from agent.models.inbox import Inbound
from agent.ports import InboxStore

log = logging.getLogger("tandem.inbox")

LEASE = 10.0
"""Seconds a pending row stays with the process that took it; renewed every third of it while its work runs."""
POLL = 2.0
"""Seconds between looks for rows whose process died."""
MAX_ATTEMPTS = 3
"""Claims of one row before it is given up (a request whose processing fails every time)."""


T = TypeVar("T")


class Spawns(Protocol):
    """Background work the app owns (``bot.tasks.Background``)."""

    def spawn(self, coro: Coroutine[Any, Any, Any], *, name: str | None = None, service: bool = False) -> Any: ...


_CURRENT: contextvars.ContextVar[Receipt | None] = contextvars.ContextVar("tandem_inbox_receipt", default=None)


def current() -> Receipt | None:
    """The inbox row whose work the caller is part of (None: a request that did not come through the inbox)."""
    return _CURRENT.get()


class Receipt:
    """The work one inbox row started in this process: done when every piece has ended.

    The one who received (or replayed) the row holds it while it dispatches; each listener and
    background task started meanwhile holds it too (they inherit the context). When the last
    lets go the row is marked done, unless a piece failed or was cancelled (then it stays
    pending, for a replay once its lease runs out).
    """

    def __init__(self, store: InboxStore, key: str, clock: Callable[[], float], lease: float = LEASE) -> None:
        self.store, self.key, self.clock, self.lease = store, key, clock, lease
        self.holds = 1
        self.failed = False
        self.ended = asyncio.Event()

    def hold(self) -> None:
        self.holds += 1

    def release(self, *, failed: bool = False) -> None:
        self.failed = self.failed or failed
        self.holds -= 1
        if self.holds == 0:
            self.ended.set()

    def task_done(self, task: asyncio.Task[Any]) -> None:
        """A background task's end (a done callback)."""
        self.release(failed=task.cancelled() or task.exception() is not None)

    @contextmanager
    def entered(self) -> Iterator[None]:
        """Work started inside this block belongs to the row."""
        token = _CURRENT.set(self)
        try:
            yield
        finally:
            _CURRENT.reset(token)

    async def watch(self) -> None:
        """Renew the row's lease while its work runs; then mark it done (or leave it for a replay)."""
        while not self.ended.is_set():
            try:
                async with asyncio.timeout(self.lease / 3):
                    await self.ended.wait()
            except TimeoutError:
                await self.store.renew_inbound(self.key, self.clock() + self.lease)
        if self.failed:
            log.warning("inbox %s: its work failed or was cut short; it is replayed once its lease runs out", self.key)
            return
        await self.store.settle_inbound(self.key, "done", self.clock())


async def settled_now() -> None:
    """Mark the current row done at once, for work whose replay would do it twice (starting a run): a crash
    before that work is done then loses it, as a start always could, and never doubles it."""
    receipt = current()
    if receipt is not None:
        await receipt.store.settle_inbound(receipt.key, "done", receipt.clock())


def watching(receipt: Receipt, background: Spawns) -> Receipt:
    """Start ``receipt``'s watch outside its own context (the watch is no piece of the row's work)."""
    token = _CURRENT.set(None)
    try:
        background.spawn(receipt.watch(), name="inbox:watch")
    finally:
        _CURRENT.reset(token)
    return receipt


async def keep(
    store: InboxStore, item: Inbound, clock: Callable[[], float], background: Spawns, lease: float = LEASE
) -> Receipt | bool:
    """Store ``item`` before its ack: its receipt (watched), True when it is only remembered (stored done),
    False when its key was received before (a duplicate: acked, and nothing more)."""
    if not await store.receive_inbound(item, item.received_at + lease):
        log.info("ignored a request delivered again (%s)", item.key[:160])
        return False
    if item.status != "pending":
        return True
    return watching(Receipt(store, item.key, clock, lease), background)


async def applying(receipt: Receipt, work: Awaitable[T]) -> T:
    """Await ``work`` (a dispatch) as the row's: what it starts belongs to the row; then the dispatcher lets go."""
    try:
        with receipt.entered():
            result = await work
    except BaseException:
        receipt.release(failed=True)
        raise
    await let_go(receipt)
    return result


Replay = Callable[[Inbound], Awaitable[None]]
"""Dispatch a stored request again, through the same handlers (its acknowledgement goes nowhere)."""


async def recover(
    store: InboxStore,
    replayers: Mapping[str, Replay],
    clock: Callable[[], float],
    background: Spawns,
    lease: float = LEASE,
) -> int:
    """Claim the rows of ``replayers``' sources whose process died, and replay each; how many were claimed."""
    now = clock()
    claimed = await store.claim_inbound(tuple(replayers), now, now + lease)
    for item in claimed:
        if item.attempts > MAX_ATTEMPTS:
            log.error("inbox %s: gave up after %d attempts (its work failed each time)", item.key, item.attempts - 1)
            await store.settle_inbound(item.key, "failed", clock())
            continue
        log.info("inbox %s: replaying a request whose process died before it was done", item.key)
        receipt = watching(Receipt(store, item.key, clock, lease), background)
        try:
            await applying(receipt, replayers[item.source](item))
        except Exception as exc:
            log.error("inbox %s: replaying it failed: %s", item.key, exc, exc_info=exc)
    return len(claimed)


async def let_go(receipt: Receipt) -> None:
    """The dispatcher's release, once the listener a dispatch started (as a task) has begun and holds the row.

    A task's first step runs in the order it was scheduled; this one is scheduled after it.
    """
    await asyncio.sleep(0)
    receipt.release()


async def recovering(
    store: InboxStore,
    replayers: Mapping[str, Replay],
    clock: Callable[[], float],
    background: Spawns,
    *,
    poll: float = POLL,
    lease: float = LEASE,
) -> None:
    """:func:`recover` at once, then every ``poll`` seconds (until cancelled)."""
    while True:
        try:
            await recover(store, replayers, clock, background, lease)
        except Exception:
            log.exception("looking for inbox rows to replay failed; trying again in %s s", poll)
        await asyncio.sleep(poll)
