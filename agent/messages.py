"""Wording people read, in one place."""

from __future__ import annotations

from datetime import UTC, datetime

from agent.models import ReviewRecord, RunState

_VERBS = {
    "approve": "approved",
    "cancel": "cancelled",
    "correct": "answered with changes",
    "instruct": "answered",
    "finish": "finished",
    "hand_back": "handed back",
}

ANCHOR_TITLES = {
    "after_plan": "Plan review",
    "before_risky_step": "Approval needed before a risky step",
    "after_risky_step": "Review of a risky step's outcome",
    "before_result": "Result review",
    "step_failed": "A step failed",
    "recovery": "Interrupted step",
    "takeover": "Human takeover",
    "takeover_step": "Proposed step (takeover)",
}


def clock_time(at: float | None) -> str:
    if at is None:
        return "?"
    return datetime.fromtimestamp(at, UTC).strftime("%H:%M UTC")


def decided_verb(answer: dict[str, object] | None) -> str:
    return _VERBS.get(str((answer or {}).get("kind")), "answered")


def stale_decision(record: ReviewRecord, state: RunState) -> str:
    if record.status == "answered":
        return (
            f"Already {decided_verb(record.answer)} by {record.answered_by} at {clock_time(record.answered_at)}; "
            "your click changed nothing."
        )
    if state.finished:
        return f"Run {state.id} is already {state.status}; this request is closed and your click changed nothing."
    return "This request is no longer open (the run has moved on); your click changed nothing."
