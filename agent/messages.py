"""Wording people read, in one place."""

from __future__ import annotations

from typing import assert_never

from agent.models import AlwaysOffer, Anchor, PlannedStep, ReviewRecord, RunState, Step, mention, moment
from agent.models.steps import TimeoutOutcome

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


DECISION_SUBJECTS: dict[Anchor, str] = {  # what a decision line is about, e.g. "Step 2 approved by …"
    "handoff": "Question from step {n}",
    "after_plan": "Plan",
    "before_risky_step": "Step {n}",
    "after_risky_step": "Outcome of step {n}",
    "before_result": "Result",
    "step_failed": "Failed step {n}",
    "recovery": "Re-run of step {n}",
    "takeover": "Takeover",
    "takeover_step": "Proposed step {n}",
}


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``1 step``, ``2 steps``, ``0 steps``; ``many`` for irregular nouns (``plural(n, "reply", "replies")``)."""
    return f"{count} {noun if count == 1 else many or noun + 's'}"


def decided_verb(answer: dict[str, object] | None) -> str:
    return _VERBS.get(str((answer or {}).get("kind")), "answered")


def stale_decision(record: ReviewRecord, state: RunState) -> str:
    if record.status == "answered":
        return (
            f"Already {decided_verb(record.answer)} by {mention(record.answered_by or '?')} at "
            f"{moment(record.answered_at) if record.answered_at else '?'}; "
            "your click changed nothing."
        )
    if state.finished:
        return f"Run {state.id} is already {state.status}; this request is closed and your click changed nothing."
    return "This request is no longer open (the run has moved on); your click changed nothing."


def timeout_note(outcome: TimeoutOutcome) -> str:
    """What became of a step that ran out of time, for its failed-step review."""
    match outcome:
        case "cancelled":
            return "Tandem stopped it; it is not running any more."
        case "abandoned":
            return (
                "It is still running in the background and may yet take effect: check before retrying. "
                "Tandem will not start this step again while that call runs."
            )
        case _:
            assert_never(outcome)


def still_running(tool: str, since: float) -> str:
    """Why a retried step was not started: its earlier call is still running."""
    return f"Not started again: the call of {tool} that timed out at {moment(since)} is still running."


OFFER_SHOWN = 5  # approvals an offer names (newest first); the rest are counted


def offer_text(offer: AlwaysOffer) -> str:
    """The history a gate's "always allow" offer shows: who approved this call shape unchanged, and when."""
    n = len(offer.approvals)
    times = "once" if n == 1 else f"{n} times"
    people = {d.by for d in offer.approvals}
    shown = offer.approvals[:OFFER_SHOWN]
    more = f" and {n - len(shown)} earlier" if n > len(shown) else ""
    when = ", ".join(moment(d.at) for d in shown) + more
    if len(people) == 1:
        head = f"{mention(offer.approvals[0].by)} approved `{offer.shape}` unchanged {times} in a row here"
    else:
        who = ", ".join(f"{mention(d.by)} {moment(d.at)}" for d in shown) + more
        return (
            f"`{offer.shape}` was approved unchanged {times} in a row here: {who}. "
            "Approving it with always allow stops asking for it in this channel."
        )
    return f"{head}: {when}. Approving it with always allow stops asking for it in this channel."


def takeover_example(state: RunState) -> str | None:
    """An instruction the run's own tools can do (its latest step, as words), for the takeover card's example."""
    steps: list[Step | PlannedStep] = [*(state.rejected_plans[-1] if state.rejected_plans else [])]
    steps += [*state.history, *state.plan]
    if not steps:
        return None
    step = steps[-1]
    value = next((str(v) for v in step.params.values() if isinstance(v, str) and v and len(v) <= 40), "")
    return f"{step.tool.replace('_', ' ')} {value}".strip()
