"""Time-outs: a review past its reminder time or deadline is reminded, paused, cancelled,
reassigned, degraded to read-only, or decided with its default. The policy says which; a
gate's deadline never approves it."""

from __future__ import annotations

from typing import assert_never

from agent.durations import spoken
from agent.errors import InvalidDecision
from agent.machine.decisions import on_decision
from agent.machine.execution import advance
from agent.machine.helpers import Result, finish_run
from agent.models import (
    Answer,
    Approve,
    AskHuman,
    Cancel,
    CloseReview,
    Decided,
    Decision,
    Effect,
    Notify,
    Remind,
    Review,
    RunState,
    TimedOut,
)
from agent.policy import TIMEOUT, SafetyPolicy


def on_timed_out(s: RunState, event: TimedOut, policy: SafetyPolicy) -> Result:
    review = s.pending
    if review is None or review.id != event.review_id:
        raise InvalidDecision(f"Review {event.review_id} is no longer pending.")
    waiting = _waited(review, event.at)
    if review.deadline is None or review.deadline > event.at:
        if review.remind_at is None or review.remind_at > event.at:
            raise InvalidDecision(f"Review {review.id} is not due yet.")
        review.remind_at = None
        return s, [Remind(review=review, text=f"Still waiting for a decision ({waiting}).")]
    strategy = policy.on_deadline(s, review)
    closed = CloseReview(review_id=review.id, by=TIMEOUT, answer={"kind": "timeout", "action": strategy})
    match strategy:
        case "pause":
            review.stale = True
            review.deadline = None
            review.remind_at = None
            return s, [Remind(review=review, text=f"No decision after {waiting}; Tandem keeps waiting.")]
        case "cancel":
            s.error = f"No decision within {waiting}."  # said once, on the line that says the run was cancelled
            state, effects = finish_run(s, "cancelled")
            return state, [closed, *effects]
        case "reassign":
            if review.assignees and review.assignee_index + 1 < len(review.assignees):
                review.assignee_index += 1
            else:
                review.escalated = True
            review.deadline = policy.fresh_deadline(review, event.at)
            review.remind_at = None
            return s, [Notify(text=f"No decision after {waiting}; asking someone else."), AskHuman(review=review)]
        case "escalate":
            return _escalate(s, event, review, policy, waiting)
        case "degrade":
            return _degrade(s, event, review, policy, waiting, closed)
        case "use_default":
            decision: Decision
            if review.anchor == "handoff":
                decision = Answer(value=review.default)
            elif review.default == "cancel":
                decision = Cancel(reason="no decision before the deadline")
            else:
                decision = Approve()
            decided = Decided(at=event.at, nonce=event.nonce, review_id=review.id, decision=decision, by=TIMEOUT)
            state, effects = on_decision(s, decided, policy)
            note = Notify(text=f"No decision after {waiting}; continued with the default ({decision.kind}).")
            return state, [closed, note, *effects]
        case _:
            assert_never(strategy)


def _escalate(s: RunState, event: TimedOut, review: Review, policy: SafetyPolicy, waiting: str) -> Result:
    """Nobody answered in time: the policy's escalation channel is told, and everyone the policy names as an
    approver may now answer as well as the assignees; after that, Tandem keeps waiting (no second escalation)."""
    review.escalated = True
    if review.assignees:
        review.assignees = [*review.assignees, *(p for p in policy.escalation_answerers() if p not in review.assignees)]
        review.assignee_index = 0
    review.strategy = "pause"
    review.deadline = policy.fresh_deadline(review, event.at)
    review.remind_at = None
    return s, [Notify(text=f"No decision after {waiting}; escalated."), AskHuman(review=review)]


def _degrade(
    s: RunState, event: TimedOut, review: Review, policy: SafetyPolicy, waiting: str, closed: CloseReview
) -> Result:
    """Nobody approved in time: skip this step and every later gated one; the read-only rest runs."""
    first = review.step or 0
    skipped = []
    for step in s.plan:
        if step.number >= first and step.status in ("pending", "failed") and policy.gated(s, step):
            if step.status == "failed" and step.number != first:
                continue
            step.status = "skipped"
            step.error = f"Skipped: nobody approved it within {waiting}."
            skipped.append(step)
    s.pending = None
    names = ", ".join(f"step {x.number} ({x.tool})" for x in skipped)
    s.output_notes.append(f"Not done, because nobody approved in time: {names}.")
    note = Notify(text=f"No approval after {waiting}: skipped {names}; the read-only steps go on.")
    state, effects = advance(s, event, policy)
    out: list[Effect] = [closed, note, *effects]
    return state, out


def _waited(review: Review, now: float) -> str:
    return spoken(now - review.created_at)
