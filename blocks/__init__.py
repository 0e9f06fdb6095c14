"""Pure Block Kit builders for Tandem's Slack surfaces: data in, block dicts out.

No I/O and no clock here; ``bot/`` posts what these return. :func:`review_blocks`
picks the message for any pending review.
"""

from __future__ import annotations

from typing import assert_never

from agent.models import Review, RunState
from blocks.handoff import handoff
from blocks.plan_review import plan_review
from blocks.result_review import after_risky_step, recovery, result_review, step_failed
from blocks.step_approval import step_approval
from blocks.takeover import takeover, takeover_step
from blocks.text import Blocks


def review_blocks(state: RunState, review: Review) -> Blocks:
    """The message that asks for a decision on ``review``."""
    match review.anchor:
        case "handoff":
            return handoff(state, review)
        case "after_plan":
            return plan_review(state, review)
        case "before_risky_step":
            return step_approval(state, review)
        case "after_risky_step":
            return after_risky_step(state, review)
        case "before_result":
            return result_review(state, review)
        case "step_failed":
            return step_failed(state, review)
        case "recovery":
            return recovery(state, review)
        case "takeover":
            return takeover(state, review)
        case "takeover_step":
            return takeover_step(state, review)
        case _:
            assert_never(review.anchor)
