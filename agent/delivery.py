"""The delivery worker: sends a channel's outbox rows, retries with backoff, makes failures visible.

Channel-neutral: a channel provides a :class:`Sender` that delivers one row (rendering
it from the run as it is by then) and raises :class:`DeliveryFailed` when it could not.
The worker never holds a run's lock, never lets one failed message stop another, and
picks up at start-up whatever an earlier process left unsent.

A message that shows a review is never given up for its size or shape: when the channel
refuses one :data:`Form` for good, the next, shorter one is sent (:data:`FORMS`), and only
a refusal of the last counts as a failure. A claim is held by a short lease the worker
renews while the send is under way, so a dead worker's sends are taken over within
seconds, and a live one's never.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Protocol

from agent.decision_lines import DecisionLine, closing_line
from agent.logs import ctx
from agent.models import (
    FORMS,
    CardRefresh,
    Delivery,
    Form,
    HandoffWebhook,
    Outgoing,
    OutgoingKind,
    PostedMessage,
    Review,
    ReviewClosed,
    ReviewDecided,
    RunState,
    Undelivered,
    WeeklyReport,
)
from agent.ports import OutboxStore, ReviewsStore, Store
from agent.runtime.home import Acks, AllCalm, RuntimeLoop, at_home

log = logging.getLogger("tandem.delivery")

MAX_ATTEMPTS = 8
"""Tries before a message counts as undelivered (backoff 2, 4, … 256 s: about eight minutes in all)."""
LEASE = 10.0
"""Seconds a claim on a row lasts unrenewed; the worker renews it every quarter of that while it sends,
so another worker takes a row over only from a worker that stopped (a crash: within about this long)."""

FALLS_BACK: frozenset[OutgoingKind] = frozenset({"review", "escalate", "redrawn"})
"""Kinds that show a review: a permanent refusal of one form falls back to the next."""


class DeliveryFailed(Exception):  # noqa: N818 - a failure of one delivery, named for what it says
    """One delivery did not go through. ``permanent``: trying again cannot help (e.g. a message too long)."""

    def __init__(self, error: str, *, retry_after: float | None = None, permanent: bool = False) -> None:
        super().__init__(error)
        self.error = error
        self.retry_after = retry_after
        self.permanent = permanent


class DeliveryDeferred(Exception):  # noqa: N818 - a signal, not a failure
    """Not now (e.g. a card edited a moment ago): try again in ``after`` seconds; no attempt is counted."""

    def __init__(self, after: float) -> None:
        super().__init__(f"deferred {after:.2f} s")
        self.after = after


class Sender(Protocol):
    async def send(self, delivery: Delivery, *, uncertain: bool, form: Form = "full") -> None:
        """Deliver one row in ``form``. ``uncertain``: an earlier attempt may have gone through (in any
        form); look before sending."""
        ...


async def review_of(store: ReviewsStore, state: RunState, review_id: str) -> Review:
    """The review a row is about: the run's pending one, else as stored (a permanent failure when it is not)."""
    if state.pending is not None and state.pending.id == review_id:
        return state.pending
    record = await store.get_review(review_id)
    if record is None:
        raise DeliveryFailed(f"review {review_id} is not in the database", permanent=True)
    return record.as_review()


async def closing_of(
    store: Store, state: RunState, message: ReviewDecided | ReviewClosed, at: float, key: str
) -> tuple[PostedMessage, DecisionLine] | None:
    """The review's posted message (kept under ``key``) and the line it gains now that ``message``, written at
    ``at``, closes it; None when the review was never shown. A review still on its way is retried."""
    posted = await store.message(key)
    if posted is None or not posted.blocks:
        status = await store.delivery_status(state.id, "review", message.review_id)
        if status in ("pending", "sending"):
            raise DeliveryFailed("the review's own message is not posted yet")
        return None
    review = await review_of(store, state, message.review_id)
    return posted, closing_line(message, review.anchor, review.step, at)


def backoff(attempts: int) -> float:
    return float(min(2**attempts, 300))


@dataclass
class DeliveryWorker:
    store: OutboxStore
    channel: str
    sender: Sender
    clock: Callable[[], float] = time.time
    poll: float = 1.0
    max_attempts: int = MAX_ATTEMPTS
    lease: float = LEASE
    escalate: bool = False  # tell the escalation channel about messages given up on
    retry_scale: float = 1.0  # multiplies the backoff (tests shorten it)
    home: RuntimeLoop | None = None  # the loop the worker runs on, when the runtime has its own
    acks: Acks | AllCalm | None = None  # requests being answered now: each send waits for them first
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    _loop: asyncio.AbstractEventLoop | None = None
    _sending: int = 0

    def wake(self) -> None:
        """Something was written: look at once instead of at the next poll (callable from any thread)."""
        loop = self._loop
        if loop is None or _running_loop() is loop:
            self._wake.set()
        elif not loop.is_closed():
            loop.call_soon_threadsafe(self._wake.set)

    async def run(self) -> None:
        """Deliver until cancelled: at once when woken, else every ``poll`` seconds (retries, other processes)."""
        self._loop = asyncio.get_running_loop()
        while True:
            self._wake.clear()
            try:
                await self.pass_once()
            except Exception:
                log.exception("delivery pass failed on channel %s; trying again", self.channel)
            try:
                # (not asyncio.wait_for: on 3.11 it can swallow a cancel that lands as the wait ends,
                # and this loop would never stop)
                async with asyncio.timeout(self.poll):
                    await self._wake.wait()
            except TimeoutError:
                pass

    @at_home
    async def idle(self, horizon: float = 0.0) -> None:
        """Deliver until nothing is due within ``horizon`` seconds (e.g. a card update held back a moment),
        and no send of this worker is still under way (tests use this)."""
        while True:
            await self.pass_once()
            if not self._sending and not await self.store.busy_deliveries(self.channel, self.clock() + horizon):
                return
            await asyncio.sleep(0.01)  # a send is under way, or a row comes due within the horizon

    @at_home
    async def pass_once(self) -> int:
        """One pass over what is due; runs are delivered side by side, each run's messages in order."""
        due = await self.store.due_deliveries(self.channel, self.clock(), self.lease)
        by_run: dict[str, list[Delivery]] = {}
        for row in due:
            by_run.setdefault(row.run_id, []).append(row)
        done = await asyncio.gather(*(self._run_rows(rows) for rows in by_run.values()))
        return sum(done)

    async def _run_rows(self, rows: list[Delivery]) -> int:
        sent = 0
        for row in rows:
            if self.acks is not None:
                await self.acks.calm()
            sent += await self._one(row)
        return sent

    async def _one(self, row: Delivery) -> int:
        held_since = self.clock()
        claim = await self.store.claim_delivery_row(row.id, held_since, self.lease)
        if not claim.claimed:
            return 0  # another worker has it
        ids = ctx(run=row.run_id, delivery=row.id, review=row.message.review_id, kind=row.message.kind)
        self._sending += 1
        renewing = asyncio.get_running_loop().create_task(self._renew(row, held_since), name=f"lease {row.id}")
        try:
            await self._send(row, claim.uncertain)
        except DeliveryDeferred as later:
            await self.store.retry_delivery(row.id, row.attempts, self.clock() + later.after, row.error or "")
            return 0
        except DeliveryFailed as exc:
            await self._failed(row, exc)
            return 0
        except Exception as exc:  # a channel's unexpected failure is a failed delivery, never a lost one
            log.error("delivery of %s crashed", row.message.kind, exc_info=exc, extra=ids)
            await self._failed(row, DeliveryFailed(f"{type(exc).__name__}: {exc}"))
            return 0
        finally:
            renewing.cancel()
            with suppress(asyncio.CancelledError):
                await renewing
            self._sending -= 1
        await self.store.delivered(row.id, self.clock())
        log.debug("delivered %s", row.message.kind, extra=ids)
        return 1

    async def _send(self, row: Delivery, uncertain: bool) -> None:
        """Send ``row`` in the fullest form the channel takes; raise the last form's failure."""
        forms = FORMS if row.message.kind in FALLS_BACK else FORMS[:1]
        refused: list[str] = []
        for form in forms:
            try:
                await self.sender.send(row, uncertain=uncertain, form=form)
            except DeliveryFailed as exc:
                if not exc.permanent or form == forms[-1]:
                    if refused and exc.permanent:
                        exc.error = f"refused in every form ({'; '.join([*refused, f'{form}: {exc.error}'])})"
                    raise
                refused.append(f"{form}: {exc.error}")
                uncertain = False  # a refused message did not go out
                ids = ctx(run=row.run_id, delivery=row.id, review=row.message.review_id, kind=row.message.kind)
                log.warning(
                    "%s refused %s as %s (%s); sending it shorter",
                    self.channel,
                    row.message.kind,
                    form,
                    exc.error,
                    extra=ids,
                )
                continue
            return

    async def _renew(self, row: Delivery, held_since: float) -> None:
        """Keep this worker's claim on ``row`` while its send is under way (cancelled when it ends)."""
        while True:
            await asyncio.sleep(self.lease / 4)
            now = self.clock()
            try:
                kept = await self.store.renew_delivery_row(row.id, held_since, now)
            except Exception:
                log.warning("could not renew the claim on delivery %d; trying again", row.id, exc_info=True)
                continue
            if not kept:  # this process stalled past the lease: another worker may send it too (it looks first)
                log.warning("lost the claim on delivery %d while sending it", row.id, extra=ctx(run=row.run_id))
                return
            held_since = now

    async def _failed(self, row: Delivery, exc: DeliveryFailed) -> None:
        attempts = row.attempts + 1
        ids = ctx(run=row.run_id, delivery=row.id, review=row.message.review_id, kind=row.message.kind)
        if exc.permanent or attempts >= self.max_attempts:
            await self.store.fail_delivery(row.id, attempts, exc.error)
            log.error("gave up delivering %s after %d attempts: %s", row.message.kind, attempts, exc.error, extra=ids)
            if isinstance(row.message, WeeklyReport | HandoffWebhook):
                return  # not shown in a run's chat: the log line above and the failed row are where it shows
            message = row.message
            follow: list[Outgoing] = [] if isinstance(message, CardRefresh) else [CardRefresh()]
            if self.escalate and not isinstance(message, Undelivered | CardRefresh):
                follow.append(Undelivered(review_id=row.message.review_id, error=exc.error, of=row.id))
            if follow:
                await self.store.add_outgoing(row.run_id, self.channel, follow, self.clock())
            return
        wait = exc.retry_after if exc.retry_after is not None else backoff(attempts) * self.retry_scale
        await self.store.retry_delivery(row.id, attempts, self.clock() + wait, exc.error)
        log.warning(
            "delivery of %s failed (%s); try %d of %d in %.0f s",
            row.message.kind,
            exc.error,
            attempts + 1,
            self.max_attempts,
            wait,
            extra=ids,
        )


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
