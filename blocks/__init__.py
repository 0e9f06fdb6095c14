"""Pure Block Kit builders for Tandem's Slack surfaces: data in, block dicts out.

No I/O and no clock here; ``bot/`` posts what these return. :func:`review_blocks`
picks the message for any pending review.
"""

from __future__ import annotations

from typing import assert_never

from agent.models import Review, RunState
from agent.policy import SafetyPolicy
from agent.review_view import ReviewView, review_view
from blocks.handoff import handoff
from blocks.plan_review import plan_review
from blocks.result_review import after_risky_step, recovery, result_review, step_failed
from blocks.step_approval import step_approval
from blocks.takeover import takeover, takeover_step
from blocks.text import Blocks, context, mention_any


def review_blocks(state: RunState, review: Review, safety: SafetyPolicy | None = None) -> Blocks:
    """The message that asks for a decision on ``review``, rendered from its channel-neutral view."""
    view = review_view(state, review, safety or SafetyPolicy())
    return _waiting_line(_blocks(state, review, view), view)


def _waiting_line(blocks: Blocks, view: ReviewView) -> Blocks:
    """ "Waiting on @bob", above the buttons (where a person looks before clicking)."""
    if not view.waiting_on or view.anchor == "takeover" or len(blocks) >= 50:
        return blocks
    who = ", ".join(mention_any(p) for p in view.waiting_on[:10])
    more = f" and {len(view.waiting_on) - 10} more" if len(view.waiting_on) > 10 else ""
    line = context(f"Waiting on {who}{more}")
    last = blocks[-1] if blocks else None
    at = len(blocks) - 1 if last is not None and last.get("type") == "actions" else len(blocks)
    return [*blocks[:at], line, *blocks[at:]]


def _blocks(state: RunState, review: Review, view: ReviewView) -> Blocks:
    match review.anchor:
        case "handoff":
            return handoff(state, review)
        case "after_plan":
            return plan_review(state, review, view)
        case "before_risky_step":
            return step_approval(state, review, view)
        case "after_risky_step":
            return after_risky_step(state, review, view)
        case "before_result":
            return result_review(state, review, view)
        case "step_failed":
            return step_failed(state, review, view)
        case "recovery":
            return recovery(state, review, view)
        case "takeover":
            return takeover(state, review)
        case "takeover_step":
            return takeover_step(state, review)
        case _:
            assert_never(review.anchor)
