"""The machine's entry points: ``start`` a run, and ``transition`` it by one event."""

from __future__ import annotations

from typing import assert_never

from agent.errors import InvalidDecision
from agent.machine import lessons
from agent.machine.decisions import on_decision
from agent.machine.execution import on_plan, on_rule_checked, on_step_finished, on_step_revised, revision_refused
from agent.machine.handoffs import on_plan_question, on_step_paused
from agent.machine.helpers import Result, ask_person, finish_run, start_work, take_over
from agent.machine.recovery import on_recovered
from agent.machine.reopen import on_reopened
from agent.machine.takeover import on_step_proposed
from agent.machine.timeouts import on_timed_out
from agent.models import (
    AskHuman,
    CancelRequested,
    CloseReview,
    Decided,
    Effect,
    Event,
    MakePlan,
    OutputReady,
    PlanDeclined,
    PlanFailed,
    PlanProposed,
    PlanQuestion,
    Recovered,
    RefineOutput,
    Reopened,
    Reschedule,
    ReviseFailed,
    ReviseStep,
    RuleChecked,
    RunState,
    StepFinished,
    StepPaused,
    StepProposedEvent,
    StepRevised,
    TimedOut,
)
from agent.policy import TIMEOUT, SafetyPolicy

DEFAULT_POLICY = SafetyPolicy()


def start(run_id: str, task: str, requester: str, at: float, **fields: object) -> Result:
    """A new run, planning."""
    state = RunState.model_validate(
        {"id": run_id, "task": task, "requester": requester, "created_at": at, "updated_at": at, **fields}
    )
    return start_work(state, MakePlan(), "planning")


def transition(state: RunState, event: Event, policy: SafetyPolicy = DEFAULT_POLICY) -> Result:
    """Apply one event to a copy of ``state``; return the new state and what to do next.

    Besides the work and the messages, the effects say what happens to reviews: a new
    one opens (``AskHuman`` with a new id, its quorum and deadline set by ``policy``),
    the pending one closes (``CloseReview``, answered or moot) or is rescheduled.
    """
    if isinstance(event, Reopened):  # a done run's thread stays open to corrections, as far as the policy lets
        refused = policy.reopen_refusal(state, event.at)
        if refused is not None:
            raise InvalidDecision(refused)
    elif state.finished:
        raise InvalidDecision(f"Run {state.id} is already {state.status}; nothing more can happen to it.")
    # A fresh copy (3x cheaper than deepcopy): the caller's state is never mutated.
    s = RunState.model_validate(state.model_dump())
    s.updated_at = event.at
    s, effects = _handle(s, event, policy)
    return s, _reviews(state, s, event, effects, policy)


def _reviews(before: RunState, s: RunState, event: Event, effects: list[Effect], policy: SafetyPolicy) -> list[Effect]:
    """Open, close and reschedule reviews as the handler left them."""
    old, new = before.pending, s.pending
    out: list[Effect] = []
    closed_here = any(isinstance(e, CloseReview) for e in effects)
    if old is not None and (new is None or new.id != old.id) and not closed_here:
        out.append(_closed(old.id, event))
    elif old is not None and new is not None and (new.deadline, new.remind_at) != (old.deadline, old.remind_at):
        out.append(Reschedule(review_id=new.id, deadline=new.deadline, remind_at=new.remind_at))
    for effect in effects:
        if isinstance(effect, AskHuman) and new is not None and effect.review.id == new.id:
            if old is None or old.id != new.id:
                policy.open(s, new)  # a new review: its quorum and deadline come from the policy
            effect = AskHuman(review=new)
        out.append(effect)
    return out


def _closed(review_id: str, event: Event) -> CloseReview:
    match event:
        case Decided() if event.review_id == review_id:
            return CloseReview(review_id=review_id, by=event.by, answer=event.decision.model_dump(mode="json"))
        case CancelRequested():
            return CloseReview(review_id=review_id, by=event.by, answer={"kind": "cancel", "reason": event.reason})
        case TimedOut() if event.review_id == review_id:
            return CloseReview(review_id=review_id, by=TIMEOUT, answer={"kind": "timeout"})
        case _:
            return CloseReview(review_id=review_id)


def _handle(s: RunState, event: Event, policy: SafetyPolicy) -> Result:
    match event:
        case PlanProposed():
            return on_plan(s, event, policy)
        case PlanFailed():
            s.inflight = None
            return take_over(s, event, f"The planner could not produce a valid plan: {event.error}")
        case PlanDeclined():
            s.inflight = None
            if s.feedback or s.history or s.plan:  # a replan, with a person already in the thread
                return take_over(s, event, event.reason)
            s.error = event.reason  # nothing anyone could approve: the run ends at once, saying why
            return finish_run(s, "failed")
        case Decided():
            return on_decision(s, event, policy)
        case StepFinished():
            return on_step_finished(s, event, policy)
        case StepRevised():
            return on_step_revised(s, event, policy)
        case ReviseFailed():
            if isinstance(s.inflight, ReviseStep) and s.inflight.anchor is not None:
                return revision_refused(s, event, s.inflight, f"Step {event.number} was not changed: {event.error}")
            s.inflight = None
            lessons.dropped(s)
            anchor = s.return_anchor or "after_plan"
            return ask_person(
                s,
                event,
                anchor,
                _pending_or_step(s, event.number),
                note=f"Could not revise step {event.number}: {event.error}",
            )
        case OutputReady():
            if isinstance(s.inflight, RefineOutput) and (s.output or "").strip() == event.text.strip():
                return revision_refused(
                    s,
                    event,
                    s.inflight,
                    "The result was not changed: the rework came back "
                    "the same. Say how it should differ, e.g. 'as a table' or 'shorter'.",
                )
            s.inflight = None
            s.output = event.text
            if event.not_done is not None:
                s.not_done = event.not_done
            learned = lessons.said(s)
            state, effects = (
                finish_run(s, "done")
                if s.finishing or not policy.stops_at(s, "before_result")
                else ask_person(s, event, "before_result")
            )
            return state, learned + effects
        case StepProposedEvent():
            return on_step_proposed(s, event)
        case Recovered():
            return on_recovered(s, event, policy)
        case CancelRequested():
            return finish_run(s, "cancelled", by=event.by, why=event.reason or "")
        case StepPaused():
            return on_step_paused(s, event)
        case TimedOut():
            return on_timed_out(s, event, policy)
        case PlanQuestion():
            return on_plan_question(s, event)
        case RuleChecked():
            return on_rule_checked(s, event, policy)
        case Reopened():
            return on_reopened(s, event, policy)
        case _:
            assert_never(event)


def _pending_or_step(s: RunState, number: int) -> int | None:
    return number if any(x.number == number for x in s.plan) else None
