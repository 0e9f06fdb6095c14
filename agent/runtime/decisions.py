"""People's side of the runtime: decisions on the pending review, and free text read as one."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence

from agent import usage
from agent.answers import answer_text
from agent.errors import ConcurrentUpdate, NoPendingReview, NotAllowed, StaleDecision
from agent.logs import ctx
from agent.messages import asked_line, stale_decision
from agent.models import (
    Anchor,
    Answer,
    AuditEvent,
    ClarifyAsked,
    Correct,
    Decided,
    Decision,
    Event,
    Handoff,
    Instruct,
    NewsLine,
    Outbound,
    Reading,
    RunState,
)
from agent.ports import Change, ClassifyContext
from agent.runtime.audit import usage_line
from agent.runtime.engine import Engine, Held
from agent.runtime.home import at_home
from agent.runtime.outbox import delivery_channel
from agent.tools import known_values

log = logging.getLogger("tandem.runtime")

# How often a decision is tried again when another process committed to its run first. Each lost
# try means someone else's commit went through, so this bounds the wait, not the progress.
DECIDE_ATTEMPTS = 20


class Decisions(Engine):
    @at_home
    async def decide(
        self,
        run_id: str,
        decision: Decision,
        by: str,
        *,
        review_id: str | None = None,
        groups: Sequence[str] = (),
        reading: Reading | None = None,
    ) -> RunState:
        """Apply a person's decision to the run's pending review, then continue.

        Refused (NotAllowed, audited, nothing else changes) when the policy does not
        let ``by`` make it. ``reading`` is how free text was read, when the decision
        came from free text: the machine applies it only as far as the policy lets text
        decide. An approval below the review's quorum is recorded and the review stays open.
        """

        async def decided(state: RunState) -> Event:
            nonlocal review_id
            review_id = await self._check_review(state, review_id)
            pending = state.pending
            assert pending is not None
            at = self.clock()
            refusal = self.safety.check(state, pending, by, decision, groups)
            if refusal is not None:
                payload = {"review": review_id, "decision": decision.kind, "action": refusal.action}
                await self.store.append_events(run_id, [AuditEvent(at=at, actor=by, kind="refused", payload=payload)])
                raise NotAllowed(refusal)
            return Decided(
                at=at,
                nonce=self.new_id(),
                review_id=review_id,
                decision=decision,
                by=by,
                reading=reading,
                groups=list(groups),
            )

        # Lost to another process's commit, the decision is made again on the run as it is now (the review
        # may be answered by then: StaleDecision; or, below its quorum, still open for this approval).
        return await self._commit_fresh(run_id, by, decided, "deciding")

    async def _commit_fresh(
        self, run_id: str, by: str, event_for: Callable[[RunState], Awaitable[Event]], doing: str
    ) -> RunState:
        """Commit the event ``event_for`` makes of the run as it is now (under the run's lock), then drive
        the run on. When another process (a replica) committed to the run between our read and our write,
        nothing of ours was written: the event is made again from the fresh run, up to DECIDE_ATTEMPTS times.
        The commit does not wait for the disk when only safe work follows it (see ``Engine._apply``)."""
        held = Held()
        for attempt in range(1, DECIDE_ATTEMPTS + 1):
            try:
                async with self._lock(run_id):
                    state, version = await self.store.load(run_id)
                    event = await event_for(state)
                    state, version, effects = await self._apply(state, version, event, by, held=held)
                break
            except ConcurrentUpdate:
                if attempt == DECIDE_ATTEMPTS:
                    raise
                log.info("run %s moved on in another process; %s again", run_id, doing, extra=ctx(run=run_id))
        return await self._drive(state, version, effects, held)

    @at_home
    async def read(
        self, run_id: str, text: str, *, review_id: str | None = None
    ) -> tuple[Reading | None, Decision | None, str]:
        """How a person's free text will be applied: (reading, decision, review id); no decision for a
        question, which :meth:`answer` answers. Changes nothing but the audit trail, which records the
        model calls the reading took."""
        state, _ = await self.store.load(run_id)
        review_id = await self._check_review(state, review_id)
        if state.takeover:
            return None, Instruct(text=text), review_id
        pending = state.pending
        assert pending is not None
        if pending.anchor == "handoff" and pending.handoff is not None and pending.handoff.declines(text):
            return None, Answer(value=None, declined=True), review_id  # "decline": the server gets decline
        if pending.anchor == "handoff" and pending.handoff is not None:
            return None, Answer(value=_answer_text(pending.handoff, text)), review_id  # a reply answers the question
        reading = await self._classify(state, text, pending.anchor, pending.step)
        if reading.intent == "retry_step" and reading.target_step is None:
            reading = reading.model_copy(update={"target_step": pending.step})
        return reading, reading.to_decision(text), review_id

    async def _classify(self, state: RunState, text: str, anchor: Anchor, step: int | None) -> Reading:
        """How the model reads ``text`` said at ``anchor`` of ``state`` (its calls are audited)."""
        context = ClassifyContext(
            task=state.task,
            anchor=anchor,
            steps=state.plan,
            step=step,
            output=state.output,
            known=known_values(self.tools, [s.tool for s in state.plan]),
        )
        with usage.counting() as used:
            reading = await self.brain.classify(text, context)
        if used.calls:
            await self.store.append_events(state.id, [usage_line(self.clock(), used)])
        return reading

    @at_home
    async def answer(
        self, run_id: str, review_id: str, text: str, by: str, *, step: int | None = None, groups: Sequence[str] = ()
    ) -> str:
        """Answer a question asked at the pending review from the run's plan, reasons and outputs, in the
        run's thread (through the outbox); the review stays pending and nothing else changes: no correction,
        no retry counted, no lesson. Refused like a correction would be. Returns the answer."""
        state, _ = await self.store.load(run_id)
        review_id = await self._check_review(state, review_id)
        assert state.pending is not None
        at = self.clock()
        refusal = self.safety.check(state, state.pending, by, Correct(intent="replan", feedback=text), groups)
        if refusal is not None:
            payload = {"review": review_id, "decision": "question", "action": refusal.action}
            await self.store.append_events(run_id, [AuditEvent(at=at, actor=by, kind="refused", payload=payload)])
            raise NotAllowed(refusal)
        reply = answer_text(state, step)
        line = AuditEvent(
            at=at, actor=by, kind="question_answered", payload={"review": review_id, "text": text[:500], "step": step}
        )
        shown_in = delivery_channel(state)
        message = NewsLine(review_id=review_id, text=asked_line(by, text, reply))
        await self.store.append_events(run_id, [line], Outbound(shown_in, [message]) if shown_in is not None else None)
        await self._notify(Change(state, [], None, by))
        return reply

    def unsure(self, reading: Reading | None) -> bool:
        """True when a reading is too uncertain to act on (an unreadable one always is): ask the person."""
        return reading is not None and not self.safety.text_sure(reading)

    @at_home
    async def clarify(
        self,
        run_id: str,
        review_id: str,
        reading: Reading,
        text: str,
        by: str,
        decision: Decision,
        *,
        groups: Sequence[str] = (),
        rejecting: bool = False,
    ) -> None:
        """Ask what ``by`` meant instead of guessing (nothing is decided); refused like the decision would be.
        ``rejecting``: the text came with "Request changes", so the question offers no Approve."""
        state, _ = await self.store.load(run_id)
        review_id = await self._check_review(state, review_id)
        assert state.pending is not None
        at = self.clock()
        refusal = self.safety.check(state, state.pending, by, decision, groups)
        if refusal is not None:
            payload = {"review": review_id, "decision": decision.kind, "action": refusal.action}
            await self.store.append_events(run_id, [AuditEvent(at=at, actor=by, kind="refused", payload=payload)])
            raise NotAllowed(refusal)
        asked: dict[str, object] = {"text": text[:500], "intent": reading.intent, "confidence": reading.confidence}
        shown_in = delivery_channel(state)
        message = ClarifyAsked(
            review_id=review_id,
            reading=reading,
            text=text[:1500],
            anchor=state.pending.anchor,
            # the prompt's own "Approve" may not open what a reply could not (an exec or deploy gate)
            can_approve=not rejecting and self.safety.text_may_approve(state, state.pending),
        )
        await self.store.append_events(
            run_id,
            [AuditEvent(at=at, actor=by, kind="clarify_asked", payload=asked)],
            Outbound(shown_in, [message]) if shown_in is not None else None,
        )
        await self._notify(Change(state, [], None, by))

    @at_home
    async def say(
        self, run_id: str, text: str, by: str, *, review_id: str | None = None, groups: Sequence[str] = ()
    ) -> tuple[Reading | None, RunState]:
        """Free text from a person: classified (or, in takeover, taken as an instruction) and applied
        as far as the policy lets text decide (NeedsClarification, UseTheButton otherwise)."""
        reading, decision, review_id = await self.read(run_id, text, review_id=review_id)
        if decision is None:  # a question: answered, nothing decided
            assert reading is not None
            await self.answer(run_id, review_id, text, by, step=reading.target_step, groups=groups)
            return reading, (await self.store.load(run_id))[0]
        state = await self.decide(run_id, decision, by, review_id=review_id, groups=groups, reading=reading)
        return reading, state

    @at_home
    async def note_override(self, run_id: str, review_id: str, by: str, *, groups: Sequence[str] = ()) -> RunState:
        """Audit a "Not what I meant": ``by`` says the reading of their reply at ``review_id`` was wrong.

        Only whoever may steer the run may say so (NotAllowed, audited, nothing else written
        otherwise). The corrected decision that follows is applied like any other; this line is
        what the reader's misread rate counts. Returns the run as it is now.
        """
        state, _ = await self.store.load(run_id)
        at = self.clock()
        refusal = self.safety.may_stop(state, by, groups)  # steering is open to the same people as stopping
        if refusal is not None:
            payload = {"review": review_id, "decision": "override", "action": refusal.action}
            await self.store.append_events(run_id, [AuditEvent(at=at, actor=by, kind="refused", payload=payload)])
            raise NotAllowed(refusal)
        await self.store.append_events(
            run_id, [AuditEvent(at=at, actor=by, kind="override", payload={"review": review_id})]
        )
        return state

    async def _check_review(self, state: RunState, review_id: str | None) -> str:
        if review_id is not None and state.pending is not None and state.pending.id == review_id:
            return review_id  # the usual case; the commit re-checks that it is still pending
        if review_id is not None:
            record = await self.store.get_review(review_id)
            if record is None or record.run_id != state.id:
                raise NoPendingReview(f"Unknown review '{review_id}' for run {state.id}.")
            if record.status != "pending":
                raise StaleDecision(
                    stale_decision(record, state), decided_by=record.answered_by, decided_at=record.answered_at
                )
        if state.finished:
            raise StaleDecision(f"Run {state.id} is already {state.status}; nothing is waiting for a decision.")
        if state.pending is None:
            raise NoPendingReview(
                f"Run {state.id} is not waiting for a decision right now (it is {state.status}). "
                "Wait for its next review, or cancel it."
            )
        if review_id is not None and state.pending.id != review_id:
            raise StaleDecision("This request is no longer open: the run has moved on.")
        return state.pending.id


def _answer_text(handoff: Handoff, text: str) -> str:
    """A typed answer as the question takes it: a choice matched to its option whatever the case."""
    if handoff.input_type == "choice":
        said = " ".join(text.split()).casefold()
        for option in handoff.options:
            if option.casefold() == said:
                return option
    return text
