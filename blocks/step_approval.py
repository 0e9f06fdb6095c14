"""Approval of a risky step right before it runs (``before_risky_step``).

Shows the parameters that will run as ``key=value`` chips (the exact JSON, which the
approval's digest covers, is behind *Show details*), the risk, the planner's reason and what
the steps since the last review returned; Approve / Request changes / Cancel run.
"""

from __future__ import annotations

from slack_sdk.models.blocks import ButtonElement

from agent.models import Review, RunState, Step
from agent.policy import SafetyPolicy
from agent.review_view import ReviewView, review_view
from blocks import ids
from blocks.evidence import evidence_blocks, evidence_button
from blocks.text import (
    Blocks,
    actions,
    button,
    cancel_button,
    clip,
    context,
    escape,
    mention,
    params_inline,
    section,
    step_of,
    step_title,
)

PARAMS_LIMIT = 1500
PARAM_VALUE_LIMIT = 300
REASON_LIMIT = 500


def step_body(step: Step, headline: str, *, params_limit: int = PARAMS_LIMIT) -> tuple[Blocks, bool]:
    """A headline with the step's tool and risk, its params as chips, and why; and whether params were cut."""
    blocks: Blocks = [section(f"{headline}\n{step_title(step)}")]
    params = params_inline(step.params, params_limit, value_limit=PARAM_VALUE_LIMIT) if step.params else None
    if params is not None:
        blocks.append(section(params.text))
    if step.reason:
        blocks.append(context(f"*Why:* {clip(' '.join(step.reason.split()), REASON_LIMIT).text}"))
    return blocks, params is not None and params.truncated


def with_evidence(blocks: Blocks, view: ReviewView, truncated: bool) -> tuple[Blocks, bool]:
    """``blocks`` followed by the review's evidence; and whether *Show details* is needed."""
    shown, cut = evidence_blocks(view.evidence)
    return [*blocks, *shown], truncated or cut


def details_for(view: ReviewView, step: Step | None) -> ButtonElement:
    """*Show details* of the evidence, and of the step under review (its exact parameters)."""
    numbers = [e.number for e in view.evidence]
    if step is not None and step.number not in numbers:
        numbers.append(step.number)
    return evidence_button(view.run_id, numbers)


def missing_step(review: Review) -> Blocks:
    """What to show if a review names a step that is not in the plan (should not happen)."""
    return [
        section(f"Step {review.step} is no longer in the plan."),
        actions(cancel_button(review.id)),
    ]


def step_approval(state: RunState, review: Review, view: ReviewView | None = None) -> Blocks:
    """Ask before a risky step runs: Approve (primary) / Request changes / Cancel run; "always allow" where the
    policy offers it (``view.choices``)."""
    view = view or review_view(state, review, SafetyPolicy())
    step = step_of(state, review)
    if step is None:
        return missing_step(review)
    blocks, truncated = step_body(step, f"✋ *Step {step.number} of {state.plan[-1].number} needs approval*")
    blocks, truncated = with_evidence(blocks, view, truncated)
    if review.note:
        blocks.append(context(clip(review.note, 1000).text))
    if view.offer_text:
        blocks.append(context(f"🔁 {escape(view.offer_text)}"))
    buttons = [button("Approve", ids.APPROVE, review.id, style="primary")]
    if "approve_always" in view.choices:
        buttons.append(button(clip(view.always_label, 75).text, ids.APPROVE_ALWAYS, review.id))
    buttons.append(button("Request changes", ids.REJECT, review.id))
    if review.approvals:
        who = ", ".join(mention(a.by) for a in review.approvals)
        blocks.append(context(f"Approved so far by {who} · {review.quorum - len(review.approvals)} more needed"))
    if truncated:
        buttons.append(details_for(view, step))
    blocks.append(actions(*buttons, cancel_button(review.id)))
    return blocks
