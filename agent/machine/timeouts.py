"""Time-outs: a review past its reminder time or deadline is reminded, paused, cancelled,
reassigned or decided with its default."""

from __future__ import annotations

from typing import assert_never

from agent.errors import InvalidDecision
from agent.machine.decisions import _on_decision
from agent.machine.helpers import Result, _finish
from agent.models import (
    Answer,
    Approve,
    AskHuman,
    Cancel,
    Decided,
    Decision,
    Notify,
    Remind,
    Review,
    RunState,
    TimedOut,
)


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
