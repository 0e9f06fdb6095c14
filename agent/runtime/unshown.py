"""Runs whose card could never be posted: stopped with the reason, and their requester told.

A run is stored before its card exists; the card is the first row of its outbox, and every other
message of the run waits for it. When the delivery worker gives that row up (a permanent error, or
its attempts ran out), nobody can see the run, nor approve what it waits for. The scheduler finds
such runs here (from the store, so a crash between the give-up and this changes nothing): an
unfinished one is cancelled, and in the same commit a ``not_started`` row tells the requester,
outside the thread that never was. A run already finished (it only read) just gets the notice.
"""

from __future__ import annotations

import logging

from agent.errors import ConcurrentUpdate, StaleDecision, UnknownRun
from agent.logs import ctx
from agent.messages import card_not_posted
from agent.models import AuditEvent, CancelRequested, NotStarted, Outbound
from agent.runtime.engine import Engine
from agent.runtime.outbox import needs_card

log = logging.getLogger("tandem.runtime")

SYSTEM = "tandem"


class Unshown(Engine):
    async def stop_unshown(self) -> int:
        """Stop (or, once finished, only tell about) every run whose card was given up on; return how many."""
        handled = 0
        for run_id, error in await self.store.unshown_runs():
            try:
                handled += await self._unshown(run_id, error)
            except (
                ConcurrentUpdate,
                StaleDecision,
                UnknownRun,
            ) as exc:  # moved on meanwhile: the next tick looks again
                log.info("run %s without a card left for the next tick: %s", run_id, exc, extra=ctx(run=run_id))
        return handled

    async def _unshown(self, run_id: str, error: str) -> int:
        async with self._lock(run_id):
            state, version = await self.store.load(run_id)
            channel = state.origin.channel
            if channel is None or not needs_card(state):
                return 0  # its card was posted after all (``tandem redeliver``)
            if await self.store.delivery_status(run_id, "not_started", None) is not None:
                return 0  # told already (by another process, between its look and ours)
            at = self.clock()
            notice = NotStarted(error=error, stopped=not state.finished)
            if state.finished:
                line = AuditEvent(at=at, actor=SYSTEM, kind="card_undelivered", payload={"error": error[:300]})
                await self.store.append_events(run_id, [line], Outbound(channel, [notice]))
            else:
                event = CancelRequested(at=at, nonce=self.new_id(), by=SYSTEM, reason=card_not_posted(error))
                await self._apply(state, version, event, SYSTEM, told=[notice])
        log.warning(
            "run %s: its card could not be posted (%s); its requester is told", run_id, error, extra=ctx(run=run_id)
        )
        return 1
