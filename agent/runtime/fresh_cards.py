"""Fresh cards for reviews that wait longer than their platform lets a card be clicked.

Some platforms let a posted card be clicked and updated only for a while (two weeks, say; a
platform says so in ``card_lifetime``). A review waiting that long would be left on a card nobody
can press. The scheduler looks here: a review whose card is older than :data:`MARGIN` short of that
lifetime gets a ``redrawn`` row with ``fresh`` through its run's outbox; the channel posts the review
on a new card and says on the old one where it went. Each repost is claimed once by key (one per
lifetime period of the review's age), so another process or a later tick does not post it again.
"""

from __future__ import annotations

import logging

from agent.logs import ctx
from agent.models import AuditEvent, Outbound, ReviewRedrawn
from agent.models.platforms import platform_named
from agent.runtime.engine import Engine

log = logging.getLogger("tandem.runtime")

DAY = 86_400.0
SYSTEM = "tandem"
MARGIN = DAY
"""How long before a card stops taking clicks its review is posted again."""
LOOK_EVERY = 3600.0
"""Seconds between two looks for reviews whose card ages (the scheduler ticks far more often)."""
WAITING_LIMIT = 1000


class FreshCards(Engine):
    _cards_looked_at: float | None = None

    async def refresh_cards(self, now: float) -> int:
        """Post again, on a fresh card, each pending review whose card is about to go stale; return how many."""
        if self._cards_looked_at is not None and now - self._cards_looked_at < LOOK_EVERY:
            return 0
        self._cards_looked_at = now
        posted = 0
        for run in await self.store.list_runs(status="awaiting_review", limit=WAITING_LIMIT):
            if run.pending_review is not None and await self._fresh_card(run.id, run.pending_review, now):
                posted += 1
        return posted

    async def _fresh_card(self, run_id: str, review_id: str, now: float) -> bool:
        record = await self.store.get_review(review_id)
        if record is None or record.status != "pending" or now - record.created_at < DAY:
            return False
        state, _ = await self.store.load(run_id)
        channel = state.origin.channel
        platform = platform_named(channel)
        lifetime = platform.card_lifetime if platform is not None else None
        if channel is None or lifetime is None or state.pending is None or state.pending.id != review_id:
            return False
        period = max(lifetime - MARGIN, DAY)
        age = now - record.created_at
        if age < period:
            return False
        key = f"fresh-card:{review_id}:{int(age // period)}"
        if not await self.store.claim_delivery(key, now):
            return False  # posted already for this period (another process, or an earlier look)
        audit = AuditEvent(at=now, actor=SYSTEM, kind="fresh_card", payload={"review": review_id})
        await self.store.append_events(
            run_id, [audit], Outbound(channel, [ReviewRedrawn(review_id=review_id, fresh=True)])
        )
        log.info("review %s is shown on a fresh card: its card ages out", review_id, extra=ctx(run=run_id))
        return True
