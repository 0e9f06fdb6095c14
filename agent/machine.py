"""The loop as a pure function: ``transition(state, event) -> (state, effects)``.

No I/O, no clock, no randomness: times and fresh ids arrive on the event. The
runtime (:mod:`agent.runtime`) performs the effects and feeds results back.

Rules worth knowing (see also docs in README):

* A step whose risk is at or above the policy's confirm threshold never runs
  unless a person approved exactly its current params (``approved_digest``).
* At most ``policy.max_retries`` corrections per run; the next correction
  hands control to a person (human takeover).
* Two consecutive failed ``retry_step`` corrections on one step escalate to a
  replan on their own.
* A risky step found ``running`` after a crash is never re-run silently.
"""

from __future__ import annotations

from typing import Literal, assert_never

from agent.errors import InvalidDecision
from agent.models import (
    Anchor,
    Answer,
    Approval,
    Approve,
    AskHuman,
    Cancel,
    CancelRequested,
    Correct,
    Decided,
    Decision,
    Effect,
    Event,
    Feedback,
    Finish,
    Finished,
    HandBack,
    Handoff,
    Instruct,
    MakePlan,
    Notify,
    OutputReady,
    Phase,
    PlanFailed,
    PlannedStep,
    PlanProposed,
    PlanQuestion,
    ProposeStep,
    Recovered,
    RefineOutput,
    Remind,
    Review,
    ReviseFailed,
    ReviseStep,
    Risk,
    RunState,
    RunStep,
    Step,
    StepFinished,
    StepPaused,
    StepProposedEvent,
    StepRevised,
    Summarize,
    TimedOut,
)

Result = tuple[RunState, list[Effect]]


def start(run_id: str, task: str, requester: str, at: float, **fields: object) -> Result:
    """A new run, planning."""
    state = RunState.model_validate(
        {"id": run_id, "task": task, "requester": requester, "created_at": at, "updated_at": at, **fields}
    )
    return _work(state, MakePlan(), "planning")


def transition(state: RunState, event: Event) -> Result:
    """Apply one event to a copy of ``state``; return the new state and what to do next."""
    if state.finished:
        raise InvalidDecision(f"Run {state.id} is already {state.status}; nothing more can happen to it.")
    # A fresh copy (3x cheaper than deepcopy): the caller's state is never mutated.
    s = RunState.model_validate(state.model_dump())
    s.updated_at = event.at
    match event:
        case PlanProposed():
            return _on_plan(s, event)
        case PlanFailed():
            s.inflight = None
            return _takeover(s, event, f"The planner could not produce a valid plan: {event.error}")
        case Decided():
            return _on_decision(s, event)
        case StepFinished():
            return _on_step_finished(s, event)
        case StepRevised():
            return _on_step_revised(s, event)
        case ReviseFailed():
            s.inflight = None
            anchor = s.return_anchor or "after_plan"
            return _ask(
                s,
                event,
                anchor,
                _pending_or_step(s, event.number),
                note=f"Could not revise step {event.number}: {event.error}",
            )
        case OutputReady():
            s.inflight = None
            s.output = event.text
            if s.finishing or "before_result" not in s.anchors:
                return _finish(s, "done")
            return _ask(s, event, "before_result")
        case StepProposedEvent():
            return _on_step_proposed(s, event)
        case Recovered():
            return _on_recovered(s, event)
        case CancelRequested():
            note = f"Cancelled by {event.by}" + (f": {event.reason}" if event.reason else "")
            return _finish(s, "cancelled", note=note)
        case StepPaused():
            return _on_step_paused(s, event)
        case TimedOut():
            return _on_timed_out(s, event)
        case PlanQuestion():
            return _on_plan_question(s, event)
        case _:
            assert_never(event)


# --- planning --------------------------------------------------------------


def _on_plan(s: RunState, event: PlanProposed) -> Result:
    s.inflight = None
    if not event.steps:
        return _takeover(s, event, "The planner found nothing to do for this task.")
    if len(event.steps) > s.policy.max_steps:
        return _takeover(s, event, f"The plan has {len(event.steps)} steps; the limit is {s.policy.max_steps}.")
    s.history.extend(step for step in s.plan if step.status in ("done", "failed"))
    s.plan = [
        Step(number=i, tool=p.tool, params=p.params, reason=p.reason, risk=p.risk)
        for i, p in enumerate(event.steps, start=1)
    ]
    s.anchors = s.policy.anchors_for(s.plan)
    s.output = None
    if "after_plan" in s.anchors:
        return _ask(s, event, "after_plan")
    return _advance(s, event)


def _replan(s: RunState, event: Decided | StepFinished, reason: str) -> Result:
    s.rejected_plans.append([PlannedStep(tool=x.tool, params=x.params, reason=x.reason) for x in s.plan])
    s.retry_step = None
    s.retry_failures = 0
    s.return_anchor = None
    effects: list[Effect] = [Notify(text=reason)] if reason else []
    state, more = _work(s, MakePlan(), "replanning")
    return state, effects + more


# --- execution -------------------------------------------------------------


def _advance(s: RunState, event: Event) -> Result:
    """Run the next pending step, or gate it, or produce the result."""
    step = next((x for x in s.plan if x.status == "pending"), None)
    if step is None:
        return _work(s, Summarize(), "summarizing")
    if s.policy.is_risky(step.risk) and step.approved_digest != step.digest:
        return _ask(s, event, "before_risky_step", step.number, digest=step.digest)
    return _run(s, step)


def _run(s: RunState, step: Step) -> Result:
    if s.executed >= s.policy.max_steps:
        s.error = f"Step limit reached: a run may execute at most {s.policy.max_steps} steps."
        return _finish(s, "failed")
    step.status = "running"
    step.attempts += 1
    step.started_at = s.updated_at
    step.result = None
    step.error = None
    s.executed += 1
    return _work(s, RunStep(number=step.number), "retrying" if s.retry_step == step.number else "executing")


def _on_step_finished(s: RunState, event: StepFinished) -> Result:
    step = s.step(event.number)
    if step.status != "running":
        raise InvalidDecision(f"Step {event.number} of run {s.id} is not running.")
    s.inflight = None
    step.finished_at = event.at
    step.status = "done" if event.ok else "failed"
    step.result = event.result
    step.error = event.error
    if s.takeover:
        return _ask(s, event, "takeover", step.number)
    retried = s.retry_step == step.number
    if not event.ok:
        if retried:
            s.retry_failures += 1
            if s.retry_failures >= 2:
                return _replan(s, event, f"Step {step.number} failed again after two corrections; replanning.")
        return _ask(s, event, "step_failed", step.number)
    if retried and s.return_anchor == "after_risky_step":
        s.return_anchor = None
        return _ask(s, event, "after_risky_step", step.number)
    last = step.number == max(x.number for x in s.plan)
    if s.policy.is_risky(step.risk) and "after_risky_step" in s.anchors and not last:
        return _ask(s, event, "after_risky_step", step.number)
    return _advance(s, event)


def _on_step_revised(s: RunState, event: StepRevised) -> Result:
    s.inflight = None
    step = s.step(event.number)
    step.params = event.params
    step.approved_digest = None
    step.approved_by = None
    anchor = s.return_anchor
    if anchor == "after_plan":
        s.return_anchor = None
        return _ask(s, event, "after_plan", note=f"Step {step.number} revised from your feedback.")
    step.status = "pending"
    step.result = None
    step.error = None
    return _advance(s, event)


# --- decisions -------------------------------------------------------------


def _on_decision(s: RunState, event: Decided) -> Result:
    review = s.pending
    if review is None or review.id != event.review_id:
        raise InvalidDecision(f"Review {event.review_id} is not the pending review of run {s.id}.")
    decision = event.decision
    if isinstance(decision, Approve | Answer) and any(a.by == event.by for a in review.approvals):
        raise InvalidDecision(f"{event.by} already approved this; it waits for other approvers.")
    if event.partial:
        if not isinstance(decision, Approve | Answer):
            raise InvalidDecision("Only an approval can count towards a quorum.")
        review.approvals.append(Approval(by=event.by, at=event.at, digest=review.digest))
        needed = review.quorum - len(review.approvals)
        return s, [Notify(text=f"Approved by {event.by}; {needed} more approval{'s' if needed != 1 else ''} needed.")]
    if isinstance(decision, Cancel):
        s.pending = None
        s.error = None
        return _finish(
            s, "cancelled", note=f"Cancelled by {event.by}" + (f": {decision.reason}" if decision.reason else "")
        )
    s.pending = None
    if review.anchor == "handoff":
        return _on_answer(s, event, review)
    if isinstance(decision, Answer):
        raise InvalidDecision("This review is not a question; approve, request changes or cancel.")
    if review.anchor in ("takeover", "takeover_step"):
        return _on_takeover_decision(s, event, review)
    match decision:
        case Approve():
            return _on_approve(s, event, review)
        case Correct():
            return _on_correction(s, event, review, decision)
        case Instruct() | Finish() | HandBack():
            raise InvalidDecision(f"'{decision.kind}' only applies during human takeover.")
        case Answer():  # refused above
            raise AssertionError("unreachable")
        case _:
            assert_never(decision)


def _on_approve(s: RunState, event: Decided, review: Review) -> Result:
    s.retry_step = None
    s.retry_failures = 0
    anchor = review.anchor
    if anchor == "before_result":
        return _finish(s, "done")
    if anchor == "before_risky_step" or anchor == "recovery":
        step = s.step(review.step or 0)
        if anchor == "before_risky_step" and step.digest != review.digest:
            raise InvalidDecision(
                "The step's parameters changed since this approval was asked; approve the new request."
            )
        step.approved_digest = step.digest
        step.approved_by = event.by
        if anchor == "recovery":
            step.status = "pending"
        return _run(s, step)
    # after_plan, after_risky_step, step_failed: carry on
    return _advance(s, event)


def _on_correction(s: RunState, event: Decided, review: Review, c: Correct) -> Result:
    intent = c.intent
    target = c.target_step or review.step
    s.feedback.append(Feedback(by=event.by, at=event.at, intent=intent, text=c.feedback, step=target))
    if s.retries >= s.policy.max_retries:
        return _takeover(s, event, f"{s.retries} corrections did not get this run right; a person takes over.")
    s.retries += 1
    anchor = review.anchor
    if intent == "refine_output":
        if anchor == "before_result" and s.output is not None:
            s.return_anchor = None
            return _work(s, RefineOutput(feedback=c.feedback), "refining")
        if anchor == "after_plan":
            intent = "replan"
        elif anchor in ("before_risky_step", "recovery"):
            intent = "retry_step"
        else:  # a note about presentation only: keep it for the final result
            s.output_notes.append(c.feedback)
            return _advance(s, event)
    if intent == "retry_step":
        if target is None:
            done = [x.number for x in s.plan if x.status in ("done", "failed")]
            target = done[-1] if done else (s.plan[0].number if s.plan else None)
        if target is None or target not in {x.number for x in s.plan}:
            intent = "replan"
        else:
            if s.retry_step != target:
                s.retry_step, s.retry_failures = target, 0
            elif s.step(target).status != "failed":
                # The last retry ran but the person is still not satisfied. (A retry
                # whose re-run failed was already counted when it finished.)
                s.retry_failures += 1
            if s.retry_failures >= 2:
                return _replan(s, event, f"Step {target} still is not right after two corrections; replanning.")
            s.return_anchor = anchor if anchor in ("after_plan", "after_risky_step") else None
            fix = ReviseStep(number=target, feedback=c.feedback, suggested_fix=c.suggested_fix)
            return _work(s, fix, "retrying")
    s.retry_step, s.retry_failures = None, 0
    return _replan(s, event, "")


# --- human takeover --------------------------------------------------------


def _takeover(s: RunState, event: Event, reason: str) -> Result:
    s.takeover = True
    s.takeover_reason = reason
    s.retry_step = None
    s.retry_failures = 0
    return _ask(s, event, "takeover")


def _on_takeover_decision(s: RunState, event: Decided, review: Review) -> Result:
    d = event.decision
    if review.anchor == "takeover_step" and isinstance(d, Approve):
        step = s.step(review.step or 0)
        if step.digest != review.digest:
            raise InvalidDecision("The proposed step changed since this approval was asked.")
        step.approved_digest = step.digest
        step.approved_by = event.by
        return _run(s, step)
    if review.anchor == "takeover_step":
        # Rejected: the proposal is dropped; the feedback, if any, is the next instruction.
        s.plan = [x for x in s.plan if x.number != review.step]
    match d:
        case Finish() | Approve():
            s.finishing = True
            return _work(s, Summarize(), "summarizing")
        case HandBack():
            if d.note:
                s.feedback.append(Feedback(by=event.by, at=event.at, intent="hand_back", text=d.note))
            return _hand_back(s)
        case Instruct():
            s.feedback.append(Feedback(by=event.by, at=event.at, intent="instruct", text=d.text))
            return _work(s, ProposeStep(instruction=d.text), "human_takeover")
        case Correct():
            s.feedback.append(Feedback(by=event.by, at=event.at, intent="instruct", text=d.feedback))
            return _work(s, ProposeStep(instruction=d.feedback), "human_takeover")
        case Cancel():  # handled before; kept for exhaustiveness
            return _finish(s, "cancelled")
        case Answer():
            raise InvalidDecision("Nothing asked a question here; give an instruction, 'finish' or 'hand back'.")
        case _:
            assert_never(d)


def _hand_back(s: RunState) -> Result:
    s.takeover = False
    s.takeover_reason = None
    s.retries = 0
    s.rejected_plans.append([PlannedStep(tool=x.tool, params=x.params, reason=x.reason) for x in s.plan])
    state, effects = _work(s, MakePlan(), "replanning")
    return state, [Notify(text="Control handed back to the agent; replanning."), *effects]


def _on_step_proposed(s: RunState, event: StepProposedEvent) -> Result:
    s.inflight = None
    if event.wish == "finish":
        s.finishing = True
        return _work(s, Summarize(), "summarizing")
    if event.wish == "hand_back":
        return _hand_back(s)
    if event.wish == "cancel":
        return _finish(s, "cancelled", note="Cancelled at the person's instruction.")
    if event.step is None:
        return _ask(s, event, "takeover", note=event.message or "I could not turn that into a step.")
    p = event.step
    number = max((x.number for x in s.plan), default=0) + 1
    step = Step(number=number, tool=p.tool, params=p.params, reason=p.reason, risk=p.risk)
    s.plan.append(step)
    return _ask(s, event, "takeover_step", number, digest=step.digest, note=event.message or None)


# --- handoffs (human.ask from a tool) -----------------------------------------


def _on_step_paused(s: RunState, event: StepPaused) -> Result:
    step = s.step(event.number)
    if step.status != "running":
        raise InvalidDecision(f"Step {event.number} of run {s.id} is not running.")
    s.inflight = None
    step.status = "waiting"
    s.executed -= 1  # the step resumes after the answer; it counts once
    h = event.handoff
    deadline = event.at + event.timeout if event.timeout else None
    review = Review(
        id=event.nonce,
        anchor="handoff",
        step=step.number,
        digest=step.digest,
        created_at=event.at,
        handoff=h,
        assignees=event.assignees,
        quorum=event.quorum,
        deadline=deadline,
        remind_at=deadline - 0.2 * event.timeout if deadline and event.timeout else None,
        strategy=event.on_timeout or ("pause" if deadline else None),
        default=h.default,
    )
    s.pending = review
    s.phase = "human_takeover" if s.takeover else "awaiting_review"
    return s, [AskHuman(review=review)]


def _on_plan_question(s: RunState, event: PlanQuestion) -> Result:
    s.inflight = None
    s.planner_questions += 1
    handoff = Handoff(
        prompt=event.question,
        input_type="choice" if event.options else "text",
        options=event.options,
        reason="the planner is not sure what you want",
        max_length=1000,
    )
    return _ask(s, event, "handoff", handoff=handoff)


def _on_answer(s: RunState, event: Decided, review: Review) -> Result:
    d = event.decision
    handoff = review.handoff
    assert handoff is not None
    if review.step is None:  # the planner's question: the answer is feedback for the plan
        if not isinstance(d, Answer):
            raise InvalidDecision("The planner asked a question: answer it (or cancel the run).")
        try:
            value = handoff.validate_answer(d.value)
        except ValueError as exc:
            raise InvalidDecision(f"Invalid answer: {exc}. The question stays open.") from None
        s.feedback.append(Feedback(by=event.by, at=event.at, intent="answer", text=str(value)))
        return _work(s, MakePlan(), "replanning")
    assert review.step is not None
    if isinstance(d, Approve) and handoff.input_type == "confirm":
        d = Answer(value=True)
    if not isinstance(d, Answer):
        raise InvalidDecision("This is a question from a tool: answer it (or cancel the run).")
    try:
        value = handoff.validate_answer(d.value)
    except ValueError as exc:
        raise InvalidDecision(f"Invalid answer: {exc}. The question stays open.") from None
    step = s.step(review.step)
    step.answers.append(value)
    step.status = "pending"
    return _advance(s, event)


# --- timeouts ---------------------------------------------------------------------


def _on_timed_out(s: RunState, event: TimedOut) -> Result:
    review = s.pending
    if review is None or review.id != event.review_id:
        raise InvalidDecision(f"Review {event.review_id} is no longer pending.")
    waiting = _waited(review, event.at)
    match event.action:
        case "remind":
            review.remind_at = None
            return s, [Remind(review=review, text=f"Still waiting for a decision ({waiting}).")]
        case "pause":
            review.stale = True
            review.deadline = None
            review.remind_at = None
            return s, [Remind(review=review, text=f"No decision after {waiting}; Tandem keeps waiting.")]
        case "cancel":
            s.error = f"No decision within {waiting}; the run was cancelled."
            return _finish(s, "cancelled", note=s.error)
        case "reassign":
            if review.assignees and review.assignee_index + 1 < len(review.assignees):
                review.assignee_index += 1
            else:
                review.escalated = True
            review.deadline = event.deadline
            review.remind_at = None
            return s, [Notify(text=f"No decision after {waiting}; asking someone else."), AskHuman(review=review)]
        case "use_default":
            decision: Decision
            if review.anchor == "handoff":
                decision = Answer(value=review.default)
            elif review.default == "cancel":
                decision = Cancel(reason="no decision before the deadline")
            else:
                decision = Approve()
            decided = Decided(
                at=event.at, nonce=event.nonce, review_id=review.id, decision=decision, by="tandem (timeout)"
            )
            state, effects = _on_decision(s, decided)
            note = Notify(text=f"No decision after {waiting}; continued with the default ({decision.kind}).")
            return state, [note, *effects]
        case _:
            assert_never(event.action)


def _waited(review: Review, now: float) -> str:
    minutes = max(int((now - review.created_at) // 60), 0)
    if minutes < 60:
        return f"{minutes} min"
    hours = minutes / 60
    return f"{hours:.1f} h" if hours < 48 else f"{hours / 24:.1f} days"


# --- recovery --------------------------------------------------------------


def _on_recovered(s: RunState, event: Recovered) -> Result:
    work = s.inflight
    if work is None:
        return s, []
    if isinstance(work, RunStep):
        step = s.step(work.number)
        s.inflight = None
        s.executed -= 1  # it is counted again if it re-runs
        if step.risk >= Risk.WRITE:
            step.status = "failed"
            step.error = "Tandem stopped while this step was running; it may or may not have taken effect."
            return _ask(s, event, "recovery", step.number, digest=step.digest)
        return _run(s, step)
    return s, [work]


# --- helpers ---------------------------------------------------------------


def _pending_or_step(s: RunState, number: int) -> int | None:
    return number if any(x.number == number for x in s.plan) else None


def _work(
    s: RunState, work: MakePlan | RunStep | ReviseStep | Summarize | RefineOutput | ProposeStep, phase: Phase
) -> Result:
    s.inflight = work
    s.phase = phase
    return s, [work]


def _ask(
    s: RunState,
    event: Event,
    anchor: Anchor,
    step: int | None = None,
    *,
    digest: str | None = None,
    note: str | None = None,
    handoff: Handoff | None = None,
) -> Result:
    review = Review(
        id=event.nonce, anchor=anchor, step=step, digest=digest, note=note, created_at=event.at, handoff=handoff
    )
    s.pending = review
    s.inflight = None
    s.phase = "human_takeover" if s.takeover else "awaiting_review"
    return s, [AskHuman(review=review)]


def _finish(s: RunState, status: Literal["done", "cancelled", "failed"], *, note: str | None = None) -> Result:
    s.phase = status
    s.pending = None
    s.inflight = None
    effects: list[Effect] = [Notify(text=note)] if note else []
    effects.append(Finished(status=status))
    return s, effects
