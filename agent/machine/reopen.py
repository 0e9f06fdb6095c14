"""A correction in the thread of a run that is done: the run opens again, as at its result review.

A run that changed nothing is delivered without a result review; its thread stays open. A
correction there (a wish about the presentation, a wrong direction, a wrong value) is applied
exactly as it would have been at that review: the same correction limit, the same lessons, and a
new plan that runs something risky stops at its gates as always.
"""

from __future__ import annotations

from agent.errors import NeedsClarification
from agent.machine.decisions import on_correction
from agent.machine.helpers import Result
from agent.models import Decided, Intent, Notify, Reopened, Review, RunState, mention
from agent.policy import SafetyPolicy

_PURPOSE: dict[Intent, str] = {
    "refine_output": "to present the result differently",
    "retry_step": "to redo a step",
    "replan": "to plan again",
}


def on_reopened(s: RunState, event: Reopened, policy: SafetyPolicy) -> Result:
    """Open the run again and apply the correction as at its result review (the loop asked the policy
    whether this run may reopen, before anything changed)."""
    if event.reading is not None and not policy.text_sure(event.reading):
        raise NeedsClarification("Tandem is not sure what that meant, so nothing changed; say it in other words.")
    result = Review(id=event.nonce, anchor="before_result", created_at=event.at)
    decided = Decided(
        at=event.at,
        nonce=event.nonce,
        review_id=result.id,
        decision=event.decision,
        by=event.by,
        reading=event.reading,
    )
    s.phase = "executing"
    s.error = None
    said = " ".join(event.decision.feedback.split())
    said = said if len(said) <= 200 else said[:199] + "…"
    reopened = Notify(text=f"Reopened by {mention(event.by)} {_PURPOSE[event.decision.intent]}: “{said}”")
    state, effects = on_correction(s, decided, result, event.decision, policy)
    return state, [reopened, *effects]
