"""The scheduler's side of the runtime: reviews whose reminder time or deadline has come."""

from __future__ import annotations

import asyncio
import logging
from typing import Literal

from agent import authz
from agent.errors import ConcurrentUpdate, InvalidDecision, StaleDecision
from agent.models import Effect, Risk, RunState, TimedOut
from agent.runtime.deadlines import _timeout_rule
from agent.runtime.engine import Engine

log = logging.getLogger("tandem.runtime")


class Scheduling(Engine):
    async def tick(self, now: float | None = None, limit: int = 500) -> int:
        """Handle reviews whose reminder time or deadline has come; return how many."""
        now = self.clock() if now is None else now
        handled = 0
        drives = []
        for review_id, run_id in await self.store.due_reviews(now, limit):
            try:
                outcome = await self._time_out(run_id, review_id, now)
            except (InvalidDecision, ConcurrentUpdate, StaleDecision) as exc:
                log.info("timeout of review %s skipped: %s", review_id, exc)
                continue
            if outcome is None:
                continue
            drives.append(self._drive(*outcome))
            handled += 1
        for result in await asyncio.gather(*drives, return_exceptions=True):
            if isinstance(result, BaseException):
                log.error("run continued after a timeout failed: %s", result, exc_info=result)
        return handled

    async def _time_out(self, run_id: str, review_id: str, now: float) -> tuple[RunState, int, list[Effect]] | None:
        async with self._lock(run_id):
            state, version = await self.store.load(run_id)
            review = state.pending
            if review is None or review.id != review_id or state.finished:
                return None
            action: Literal["remind", "cancel", "reassign", "use_default", "pause"]
            if review.deadline is not None and review.deadline <= now:
                action = review.strategy or "pause"
                if action == "use_default" and review.anchor != "handoff":
                    if authz.review_risk(state, review) >= Risk.EXEC:
                        action = "pause"  # risky reviews never continue on their own
            elif review.remind_at is not None and review.remind_at <= now:
                action = "remind"
            else:
                return None
            rule = _timeout_rule(self.config, review)
            fresh = now + rule.after if rule is not None else now + (now - review.created_at)
            event = TimedOut(at=now, nonce=self.new_id(), review_id=review_id, action=action, deadline=fresh)
            answered = None
            if action in ("cancel", "use_default"):
                answered = (review_id, {"kind": "timeout", "action": action})
            return await self._apply(state, version, event, "tandem (timeout)", answered=answered)
