"""The scheduler's side of the runtime: reviews whose reminder time or deadline has come, and report posts."""

from __future__ import annotations

import asyncio
import logging

from agent.errors import ConcurrentUpdate, InvalidDecision, StaleDecision
from agent.models import Effect, RunState, TimedOut
from agent.policy import TIMEOUT
from agent.runtime.fresh_cards import FreshCards
from agent.runtime.home import at_home
from agent.runtime.unshown import Unshown
from agent.weekly import next_post_time, post_message, report_outbound, scheduled_post

log = logging.getLogger("tandem.runtime")


class Scheduling(Unshown, FreshCards):
    @at_home
    async def tick(self, now: float | None = None, limit: int = 500) -> int:
        """Handle reviews whose reminder time or deadline has come (return how many), and runs whose card
        could not be posted."""
        now = self.clock() if now is None else now
        handled = 0
        drives = []
        for due in await self.store.due_reviews(now, limit):
            try:
                outcome = await self._time_out(due.run_id, due.review_id, now)
            except (InvalidDecision, ConcurrentUpdate, StaleDecision) as exc:
                log.info("timeout of review %s skipped: %s", due.review_id, exc)
                continue
            if outcome is None:
                continue
            drives.append(self._drive(*outcome))
            handled += 1
        for result in await asyncio.gather(*drives, return_exceptions=True):
            if isinstance(result, BaseException):
                log.error("run continued after a timeout failed: %s", result, exc_info=result)
        await self.post_reports(now)
        await self.stop_unshown()
        await self.refresh_cards(now)
        return handled

    async def post_reports(self, now: float | None = None) -> int:
        """Claim the report posts whose time has come (each once, across processes and restarts: a post
        missed while nothing ran goes out late, once), then keep the next weekly one scheduled."""
        now = self.clock() if now is None else now
        rule = self.config.report
        posted = 0
        for post in await self.store.due_posts(now):
            if not post.manual and post.channel != rule.channel:
                continue  # the policy no longer posts there
            message = post_message(post, rule, now)
            outbound = report_outbound(message)
            if outbound is None:
                log.warning("report post %s skipped: no installed platform posts to %s", post.key, post.channel)
                continue
            if await self.store.claim_post(post.key, outbound, now):
                posted += 1
                late = message.late_by
                log.info("report post %s claimed%s", post.key, f" ({late / 3600:.1f} h late)" if late else "")
        if rule.channel is not None:
            await self.store.schedule_post(scheduled_post(rule.channel, next_post_time(rule, now)), now)
        return posted

    async def _time_out(self, run_id: str, review_id: str, now: float) -> tuple[RunState, int, list[Effect]] | None:
        """Tell the machine the review is due; what follows (remind, pause, ...) is the policy's, in the machine."""
        async with self._lock(run_id):
            state, version = await self.store.load(run_id)
            review = state.pending
            if review is None or review.id != review_id or state.finished:
                return None
            due = [t for t in (review.deadline, review.remind_at) if t is not None and t <= now]
            if not due:
                return None
            event = TimedOut(at=now, nonce=self.new_id(), review_id=review_id)
            return await self._apply(state, version, event, TIMEOUT)
