"""The runtime: carries out the machine's effects and feeds results back.

Every transition is persisted before its effects are carried out, so a process
that dies anywhere resumes from the last transition (see ``recover``).
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Literal

from pydantic_core import to_jsonable_python

from agent import authz, human, machine
from agent.config import PolicyConfig, TimeoutRule
from agent.errors import (
    ConcurrentUpdate,
    InvalidDecision,
    LLMError,
    NoPendingReview,
    NotAllowed,
    StaleDecision,
    TandemError,
)
from agent.messages import stale_decision
from agent.models import (
    Answer,
    Approve,
    AskHuman,
    AuditEvent,
    CancelRequested,
    Decided,
    Decision,
    Effect,
    Event,
    Instruct,
    MakePlan,
    OutputReady,
    PlanFailed,
    PlanProposed,
    PlanQuestion,
    Policy,
    ProposedStep,
    ProposeStep,
    Reading,
    Recovered,
    RefineOutput,
    Review,
    ReviseFailed,
    ReviseStep,
    Risk,
    Rule,
    RunState,
    RunStep,
    StepFinished,
    StepPaused,
    StepProposedEvent,
    StepRevised,
    Summarize,
    TakeoverReading,
    TimedOut,
)
from agent.ports import Brain, Change, ClassifyContext, Observer, Store
from agent.tools import ToolRegistry

log = logging.getLogger("tandem.runtime")

ToolContext = Callable[[], AbstractContextManager[Any]]
_MAX_RESULT_CHARS = 20_000


def _new_id() -> str:
    return uuid.uuid4().hex[:12]


class Runtime:
    def __init__(
        self,
        store: Store,
        brain: Brain,
        tools: ToolRegistry,
        *,
        policy: Policy | None = None,
        config: PolicyConfig | None = None,
        observers: list[Observer] | None = None,
        tool_context: ToolContext | None = None,
        clock: Callable[[], float] = time.time,
        new_id: Callable[[], str] = _new_id,
    ) -> None:
        self.store = store
        self.brain = brain
        self.tools = tools
        self.config = config or PolicyConfig()
        self.policy = policy or Policy(confirm_threshold=Risk.parse(self.config.confirm_threshold))
        self.observers = list(observers or [])
        self.tool_context = tool_context or nullcontext
        self.clock = clock
        self.new_id = new_id
        self._locks: dict[str, asyncio.Lock] = {}

    # --- entry points -------------------------------------------------------

    async def start(self, task: str, requester: str, *, channel: dict[str, str] | None = None) -> RunState:
        """Create a run and drive it to its first pause."""
        task = task.strip()
        if not task:
            raise InvalidDecision("A run needs a task: say what Tandem should do.")
        at = self.clock()
        state, effects = machine.start(self.new_id(), task, requester, at, policy=self.policy, channel=channel or {})
        audit = [AuditEvent(at=at, actor=requester, kind="started", payload={"task": task})]
        version = await self.store.create(state, audit)
        await self._notify(Change(state, effects, None, requester))
        return await self._drive(state, version, effects)

    async def decide(
        self,
        run_id: str,
        decision: Decision,
        by: str,
        *,
        review_id: str | None = None,
        groups: Sequence[str] = (),
    ) -> RunState:
        """Apply a person's decision to the run's pending review, then continue.

        Refused (NotAllowed, audited, nothing else changes) when the policy does not
        let ``by`` make it. An approval below the review's quorum is recorded and
        the review stays open.
        """
        async with self._lock(run_id):
            state, version = await self.store.load(run_id)
            review_id = await self._check_review(state, review_id)
            pending = state.pending
            assert pending is not None
            at = self.clock()
            refusal = authz.check(self.config, state, pending, by, decision, groups)
            if refusal is not None:
                payload = {"review": review_id, "decision": decision.kind, "action": refusal.action}
                await self.store.append_events(run_id, [AuditEvent(at=at, actor=by, kind="refused", payload=payload)])
                raise NotAllowed(refusal)
            partial = _counts_for_quorum(decision) and len(pending.approvals) + 1 < self._quorum(state, pending)
            event = Decided(at=at, nonce=self.new_id(), review_id=review_id, decision=decision, by=by, partial=partial)
            answered = None if partial else (review_id, decision.model_dump(mode="json"))
            state, version, effects = await self._apply(state, version, event, by, answered=answered)
        return await self._drive(state, version, effects)

    def _quorum(self, state: RunState, review: Review) -> int:
        if review.anchor == "handoff" or review.quorum > 1:
            return review.quorum
        wanted = self.config.quorum_for(authz.review_risk(state, review))
        if wanted == "any" or not self.config.has_approvers:
            return 1
        if wanted == "all":
            return authz.approvers(self.config, state, review).count()
        return int(wanted)

    # --- timeouts -------------------------------------------------------------

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
            rule = self._timeout_rule(review)
            fresh = now + rule.after if rule is not None else now + (now - review.created_at)
            event = TimedOut(at=now, nonce=self.new_id(), review_id=review_id, action=action, deadline=fresh)
            answered = None
            if action in ("cancel", "use_default"):
                answered = (review_id, {"kind": "timeout", "action": action})
            return await self._apply(state, version, event, "tandem (timeout)", answered=answered)

    def _timeout_rule(self, review: Review) -> TimeoutRule | None:
        kind = review.anchor if review.anchor in self.config.timeouts else None
        return self.config.timeouts.get(kind) if kind else None

    def _schedule(self, state: RunState, review: Review) -> None:
        """Give a newly opened review its reminder and deadline from the policy."""
        if review.deadline is not None:
            return
        rule = self._timeout_rule(review)
        if rule is None:
            return
        review.deadline = review.created_at + rule.after
        review.remind_at = review.deadline - rule.reminder_lead
        review.strategy = rule.strategy
        review.default = rule.default

    async def read(
        self, run_id: str, text: str, *, review_id: str | None = None
    ) -> tuple[Reading | None, Decision, str]:
        """How a person's free text will be applied: (reading, decision, review id). Changes nothing."""
        state, _ = await self.store.load(run_id)
        review_id = await self._check_review(state, review_id)
        if state.takeover:
            return None, Instruct(text=text), review_id
        pending = state.pending
        assert pending is not None
        context = ClassifyContext(
            task=state.task, anchor=pending.anchor, steps=state.plan, step=pending.step, output=state.output
        )
        reading = await self.brain.classify(text, context)
        if reading.intent == "retry_step" and reading.target_step is None:
            reading = reading.model_copy(update={"target_step": pending.step})
        return reading, reading.to_decision(text), review_id

    def unsure(self, reading: Reading | None) -> bool:
        """True when a reading is too uncertain to act on: ask the person instead of guessing.
        (The documented fallback for an unreadable model answer is applied as is.)"""
        return reading is not None and not reading.fallback and reading.confidence < self.config.confidence_threshold

    async def say(
        self, run_id: str, text: str, by: str, *, review_id: str | None = None
    ) -> tuple[Reading | None, RunState]:
        """Free text from a person: classified (or, in takeover, taken as an instruction) and applied."""
        reading, decision, review_id = await self.read(run_id, text, review_id=review_id)
        return reading, await self.decide(run_id, decision, by, review_id=review_id)

    async def cancel(self, run_id: str, by: str, reason: str = "") -> RunState:
        """Stop a run at any point, also while it works."""
        async with self._lock(run_id):
            state, version = await self.store.load(run_id)
            if state.finished:
                raise StaleDecision(f"Run {run_id} is already {state.status}.")
            event = CancelRequested(at=self.clock(), nonce=self.new_id(), by=by, reason=reason)
            answered = None
            if state.pending is not None:
                answered = (state.pending.id, {"kind": "cancel", "reason": reason})
            state, _, _ = await self._apply(state, version, event, by, answered=answered)
        return state

    async def recover(self, run_id: str) -> RunState:
        """Resume a run whose process died while it was working."""
        async with self._lock(run_id):
            state, version = await self.store.load(run_id)
            if state.finished or state.inflight is None:
                return state
            event = Recovered(at=self.clock(), nonce=self.new_id())
            state, version, effects = await self._apply(state, version, event, "tandem")
        return await self._drive(state, version, effects)

    async def recover_all(self) -> list[RunState]:
        recovered = []
        for run_id in await self.store.runs_in_flight():
            try:
                recovered.append(await self.recover(run_id))
            except TandemError as exc:
                log.warning("could not recover run %s: %s", run_id, exc)
        return recovered

    # --- the loop -------------------------------------------------------------

    async def _drive(self, state: RunState, version: int, effects: list[Effect]) -> RunState:
        queue = list(effects)
        while queue:
            effect = queue.pop(0)
            event = await self._perform(state, effect)
            if event is None:
                continue
            try:
                async with self._lock(state.id):
                    state, version, more = await self._apply(state, version, event, "tandem")
            except ConcurrentUpdate:
                # Someone (a cancel) moved the run on while we worked: keep the record, stop here.
                fresh, _ = await self.store.load(state.id)
                log.info("run %s moved on while %s was in progress; now %s", state.id, effect.kind, fresh.status)
                return fresh
            queue.extend(more)
        return state

    async def _apply(
        self,
        state: RunState,
        version: int,
        event: Event,
        actor: str,
        *,
        answered: tuple[str, dict[str, Any]] | None = None,
    ) -> tuple[RunState, int, list[Effect]]:
        new, effects = machine.transition(state, event)
        opened = next((e.review for e in effects if isinstance(e, AskHuman)), None)
        if opened is not None and opened.id == (state.pending.id if state.pending else None):
            opened = None  # the same review asked again (reassigned): not a new one
        if opened is not None:
            self._schedule(new, opened)
        audit = [AuditEvent(at=event.at, actor=actor, kind=event.kind, payload=_audit_payload(event))]
        audit += [
            AuditEvent(at=event.at, actor="tandem", kind=e.kind, payload=_effect_payload(e))
            for e in effects
            if e.kind in ("ask_human", "finished", "notify", "remind")
        ]
        answer = (answered[0], actor, event.at, answered[1]) if answered else None
        before = state.pending
        after = new.pending
        closed = None
        if before is not None and (after is None or after.id != before.id) and before.id != (answered or ("",))[0]:
            closed = before.id  # moot now (e.g. the run was cancelled while it waited)
        reschedule = (
            before is not None
            and after is not None
            and after.id == before.id
            and (after.deadline, after.remind_at) != (before.deadline, before.remind_at)
        )
        version = await self.store.commit(
            new, version, audit, opened=opened, answered=answer, closed=closed, reschedule=reschedule
        )
        rule = None
        if opened is not None and opened.anchor == "before_risky_step":
            rule = await self._standing_rule(new, opened)
        if rule is not None and opened is not None:
            # An "always allow" rule answers the gate at once: nobody is asked, the approval is logged.
            auto = Decided(
                at=event.at, nonce=self.new_id(), review_id=opened.id, decision=Approve(), by=f"rule:{rule.id}"
            )
            return await self._apply(new, version, auto, auto.by, answered=(opened.id, {"kind": "approve"}))
        await self._notify(Change(new, effects, event, actor, answered[0] if answered else None))
        return new, version, effects

    async def _standing_rule(self, state: RunState, review: Review) -> Rule | None:
        """An "always allow" rule of the run's channel that covers this step (never for deploys)."""
        channel = state.channel.get("channel")
        if channel is None or review.step is None:
            return None
        step = state.step(review.step)
        if step.risk >= Risk.DEPLOY:
            return None
        return next((r for r in await self.store.rules(channel) if r.tool == step.tool), None)

    async def _perform(self, state: RunState, effect: Effect) -> Event | None:
        at = self.clock
        nonce = self.new_id
        match effect:
            case MakePlan():
                try:
                    steps = await self.brain.plan(
                        state.task,
                        self.tools,
                        feedback=[f.text for f in state.feedback],
                        rejected=state.rejected_plans[-1] if state.rejected_plans else [],
                        completed=state.history + [s for s in state.plan if s.status == "done"],
                        max_steps=state.policy.max_steps,
                        # at most two questions per run, then the planner's best guess goes to review
                        ask_below=self.config.confidence_threshold if state.planner_questions < 2 else 0.0,
                    )
                except human.PlannerQuestion as ask:
                    return PlanQuestion(at=at(), nonce=nonce(), question=ask.question, options=ask.options)
                except LLMError as exc:
                    return PlanFailed(at=at(), nonce=nonce(), error=str(exc))
                return PlanProposed(at=at(), nonce=nonce(), steps=steps)
            case RunStep():
                return await self._run_step(state, effect.number)
            case ReviseStep():
                step = state.step(effect.number)
                try:
                    params = await self.brain.revise_step(
                        state.task, step, self.tools, feedback=effect.feedback, suggested_fix=effect.suggested_fix
                    )
                except LLMError as exc:
                    return ReviseFailed(at=at(), nonce=nonce(), number=effect.number, error=str(exc))
                return StepRevised(at=at(), nonce=nonce(), number=effect.number, params=params)
            case Summarize():
                executed = state.history + state.plan
                text = await self.brain.summarize(state.task, executed, state.output_notes)
                return OutputReady(at=at(), nonce=nonce(), text=text)
            case RefineOutput():
                text = await self.brain.refine(state.task, state.output or "", effect.feedback, state.plan)
                return OutputReady(at=at(), nonce=nonce(), text=text)
            case ProposeStep():
                reading = await self.brain.propose(effect.instruction, state.task, state.plan, self.tools)
                return self._proposal_event(reading)
            case _:
                return None  # AskHuman, Notify, Finished: observers were told at commit time

    def _proposal_event(self, reading: TakeoverReading) -> Event:
        at, nonce = self.clock(), self.new_id()
        if reading.kind == "step" and reading.step is not None:
            try:
                spec = self.tools.get(reading.step.tool)
                params = spec.validate(reading.step.params)
            except TandemError as exc:
                return StepProposedEvent(at=at, nonce=nonce, message=str(exc))
            step = ProposedStep(tool=spec.name, params=params, reason=reading.step.reason, risk=spec.risk)
            return StepProposedEvent(at=at, nonce=nonce, step=step, message=reading.message)
        if reading.kind in ("finish", "hand_back", "cancel"):
            return StepProposedEvent(at=at, nonce=nonce, wish=reading.kind, message=reading.message)
        return StepProposedEvent(at=at, nonce=nonce, message=reading.message or "I could not turn that into a step.")

    async def _run_step(self, state: RunState, number: int) -> StepFinished | StepPaused:
        step = state.step(number)
        try:
            spec = self.tools.get(step.tool)
            with self.tool_context(), human.replay(step.answers):
                result = await asyncio.wait_for(spec.call(step.params), timeout=state.policy.step_timeout)
        except human.NeedsHuman as ask:
            return StepPaused(
                at=self.clock(),
                nonce=self.new_id(),
                number=number,
                handoff=ask.handoff,
                assignees=ask.assignees,
                quorum=ask.quorum,
                timeout=ask.timeout,
                on_timeout=ask.on_timeout,
            )
        except TimeoutError:
            error = f"Timed out after {state.policy.step_timeout:g} s."
            return StepFinished(at=self.clock(), nonce=self.new_id(), number=number, ok=False, error=error)
        except TandemError as exc:
            return StepFinished(at=self.clock(), nonce=self.new_id(), number=number, ok=False, error=str(exc))
        except Exception as exc:  # a tool's own failure is data for the person, never a crash of the loop
            error = f"{type(exc).__name__}: {exc}"
            return StepFinished(at=self.clock(), nonce=self.new_id(), number=number, ok=False, error=error)
        value = to_jsonable_python(result, fallback=str)
        if isinstance(value, str) and len(value) > _MAX_RESULT_CHARS:
            value = value[:_MAX_RESULT_CHARS] + f"\n… ({len(value) - _MAX_RESULT_CHARS} more characters cut)"
        return StepFinished(at=self.clock(), nonce=self.new_id(), number=number, ok=True, result=value)

    # --- helpers ------------------------------------------------------------

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

    def _lock(self, run_id: str) -> asyncio.Lock:
        lock = self._locks.get(run_id)
        if lock is None:
            lock = self._locks[run_id] = asyncio.Lock()
        return lock

    async def _notify(self, change: Change) -> None:
        for observer in self.observers:
            try:
                await observer.on_change(change)
            except Exception:  # a channel failing must not lose the run
                log.exception("observer %r failed on run %s", observer, change.state.id)


def _counts_for_quorum(decision: Decision) -> bool:
    return isinstance(decision, Approve) or (isinstance(decision, Answer) and decision.value is True)


def _audit_payload(event: Event) -> dict[str, Any]:
    data = event.model_dump(mode="json", exclude={"at", "nonce", "kind"}, exclude_defaults=True)
    if isinstance(event, StepFinished) and isinstance(data.get("result"), str) and len(data["result"]) > 200:
        data["result"] = data["result"][:200] + "…"
    if isinstance(event, PlanProposed):
        data = {"steps": [f"{s.tool}({', '.join(f'{k}={v}' for k, v in s.params.items())})" for s in event.steps]}
    return data


def _effect_payload(effect: Effect) -> dict[str, Any]:
    if isinstance(effect, AskHuman):
        r = effect.review
        return {"review": r.id, "anchor": r.anchor, **({"step": r.step} if r.step else {})}
    return effect.model_dump(mode="json", exclude={"kind"})
