"""The Runtime: start, cancel and recover runs; decisions, reopening and the scheduler come from its bases."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from agent import machine
from agent.errors import ConcurrentUpdate, InvalidDecision, NotAllowed, StaleDecision, TandemError
from agent.logs import ctx
from agent.machine import asked, lessons
from agent.machine.asked import AskTerms
from agent.models import (
    AuditEvent,
    CancelRequested,
    Handoff,
    Origin,
    Outbound,
    Recovered,
    ReviewRedrawn,
    RunStarted,
    RunState,
    RunStep,
    Terminal,
)
from agent.ports import Change
from agent.review_view import lessons_shown
from agent.runtime.audit import audit_lines
from agent.runtime.home import at_home
from agent.runtime.outbox import delivery_channel, needs_card, outbound, outgoing_for
from agent.runtime.reopening import Reopening
from agent.runtime.scheduler import Scheduling

log = logging.getLogger("tandem.runtime")


class Runtime(Reopening, Scheduling):
    @at_home
    async def start(self, task: str, requester: str, *, origin: Origin | None = None) -> RunState:
        """Create a run and drive it to its first pause."""
        task = task.strip()
        if not task:
            raise InvalidDecision("A run needs a task: say what Tandem should do.")
        at = self.clock()
        state, effects = machine.start(
            self.new_id(), task, requester, at, policy=self.policy, origin=origin or Terminal()
        )
        audit = [AuditEvent(at=at, actor=requester, kind="started", payload={"task": task})]
        shown_in = delivery_channel(state)
        messages = outgoing_for(None, None, effects)
        if needs_card(state):  # stored first, its card an outbox row: every later message threads under it
            messages.insert(0, RunStarted())
        outbox = Outbound(shown_in, messages) if shown_in is not None else None
        version = await self.store.create(state, audit, outbox=outbox, lease=self._lease(state))
        await self._notify(Change(state, effects, None, requester))
        return await self._drive(state, version, effects)

    @at_home
    async def ask(self, run_id: str, requester: str, origin: Origin, handoff: Handoff, terms: AskTerms) -> RunState:
        """Create a run (id ``run_id``) that only asks ``handoff`` (see :mod:`agent.machine.asked`), waiting at
        its question. Its card and question go out through the outbox, like a started run's."""
        at = self.clock()
        state, effects, paused = asked.start(
            run_id, requester, origin, handoff, at, self.safety, limits=self.policy, **terms
        )
        audit = [AuditEvent(at=at, actor=requester, kind="started", payload={"task": state.task, "asked": True})]
        audit += audit_lines(paused, requester, effects, state, state)
        messages = outgoing_for(None, None, effects)
        if needs_card(state):
            messages.insert(0, RunStarted())
        version = await self.store.create(state, audit, opened=state.pending, outbox=outbound(state, messages))
        await self._notify(Change(state, effects, None, requester))
        return await self._drive(state, version, effects)

    @at_home
    async def cancel(self, run_id: str, by: str, reason: str = "", *, groups: Sequence[str] = ()) -> RunState:
        """Stop a run at any point, also while it works; only who may steer it may (NotAllowed otherwise)."""
        async with self._lock(run_id):
            state, version = await self.store.load(run_id)
            if state.finished:
                raise StaleDecision(f"Run {run_id} is already {state.status}.")
            at = self.clock()
            refusal = self.safety.may_stop(state, by, groups)
            if refusal is not None:
                payload = {"decision": "cancel", "action": refusal.action}
                await self.store.append_events(run_id, [AuditEvent(at=at, actor=by, kind="refused", payload=payload)])
                raise NotAllowed(refusal)
            event = CancelRequested(at=at, nonce=self.new_id(), by=by, reason=reason)
            state, _, _ = await self._apply(state, version, event, by)
        return state

    @at_home
    async def recover(self, run_id: str) -> RunState:
        """Resume a run whose process died while it was working.

        Work whose lease is still held (another process, or this one, is on it) is left alone:
        a step in flight has one owner, and it is interrupted only once its lease ran out.
        """
        async with self._lock(run_id):
            state, version = await self.store.load(run_id)
            if state.finished or state.inflight is None:
                return state
            lease = await self.store.lease(run_id)
            if lease is not None and lease.until > self.clock():
                log.info(
                    "run %s is being worked on by %s (lease for %.0f s more); not recovering it",
                    run_id,
                    lease.owner,
                    lease.until - self.clock(),
                    extra=ctx(run=run_id),
                )
                return state
            work = state.inflight
            tool = state.step(work.number).tool if isinstance(work, RunStep) else None
            idempotent = tool is not None and tool in self.tools and self.tools.get(tool).idempotent
            event = Recovered(at=self.clock(), nonce=self.new_id(), idempotent=idempotent)
            state, version, effects = await self._apply(state, version, event, "tandem")
        return await self._drive(state, version, effects)

    @at_home
    async def recover_all(self) -> list[RunState]:
        recovered = []
        for run_id in await self.store.runs_in_flight():
            try:
                recovered.append(await self.recover(run_id))
            except TandemError as exc:
                log.warning("could not recover run %s: %s", run_id, exc)
        return recovered

    @at_home
    async def forgot_lesson(self, run_id: str, lesson_id: str, by: str, at: float) -> RunState:
        """A lesson this run's plan used was forgotten (the store already says so): the run shows who forgot
        it, its thread is told, and its pending review and card are drawn again. While a step is in flight
        the run is its worker's to write, so then the thread is only told."""
        async with self._lock(run_id):
            for _ in range(3):
                state, version = await self.store.load(run_id)
                new, effects = lessons.forgotten(state, lesson_id, by, at)
                if not effects:
                    return state
                audit = [AuditEvent(at=at, actor=by, kind="lesson_forgotten", payload={"lesson": lesson_id})]
                messages = outgoing_for(state, None, effects)
                review = new.pending
                if review is not None and any(u.id == lesson_id for u in lessons_shown(new, review)):
                    messages.insert(-1, ReviewRedrawn(review_id=review.id))
                channel = delivery_channel(new)
                outbox = Outbound(channel, messages) if channel is not None else None
                if state.inflight is not None:
                    await self.store.append_events(run_id, audit, outbox)
                    new = state
                else:
                    try:
                        await self.store.commit(new, version, audit, outbox=outbox)
                    except ConcurrentUpdate:  # the run moved on in another process: mark it as it is now
                        continue
                await self._notify(Change(new, effects, None, by))
                return new
        raise ConcurrentUpdate(f"Run {run_id} kept changing while Tandem noted a forgotten lesson.")
