"""The plan review (``after_plan``): numbered steps, then Approve / Request changes / Cancel run."""

from __future__ import annotations

from agent.models import Review, RunState, Step
from agent.policy import SafetyPolicy
from agent.review_view import ReviewView, review_view
from blocks import ids
from blocks.lessons import applied_lessons
from blocks.text import (
    Blocks,
    Clipped,
    actions,
    button,
    cancel_button,
    clip,
    context,
    details_button,
    escape,
    pack,
    params_inline,
    risk_badge,
    section,
    step_title,
)

STEP_TEXT_MAX = 700
PLAN_BUDGET = 7000  # all steps together
ONE_SECTION_PER_STEP_UP_TO = 20


def step_text(step: Step, limit: int = STEP_TEXT_MAX) -> Clipped:
    """``*2.* `restart_service` · 🟠 exec`` with its key params and the planner's reason."""
    head = f"*{step.number}.* {step_title(step)}"
    room = max(limit - len(head) - 4, 40)
    params = params_inline(step.params, room * 3 // 5) if step.params else Clipped("", False)
    reason = clip(" ".join(step.reason.split()), max(room - len(params.text), 20)) if step.reason else None
    lines = [head, params.text, f"_{reason.text}_" if reason else ""]
    truncated = params.truncated or (reason is not None and reason.truncated)
    return Clipped("\n".join(line for line in lines if line), truncated)


def plan_review(state: RunState, review: Review, view: ReviewView | None = None) -> Blocks:
    """The message asking a person to approve, correct or cancel the plan, and what approving it
    does to its risky steps (``view.gate_lines``: approved with it, or still asking whom)."""
    view = view or review_view(state, review, SafetyPolicy())
    steps = state.plan
    count = f"{len(steps)} step" + ("" if len(steps) == 1 else "s")
    headline = f"📋 *Plan for review* · {count}"
    if steps:
        headline += f" · up to {risk_badge(max(s.risk for s in steps))}"
    blocks: Blocks = [section(headline)]
    if review.note:
        blocks.append(context(clip(review.note, 1000).text))

    per_step = max(150, min(STEP_TEXT_MAX, PLAN_BUDGET // max(len(steps), 1)))
    texts = [step_text(step, per_step) for step in steps]
    bodies = [t.text for t in texts]
    if len(bodies) > ONE_SECTION_PER_STEP_UP_TO:
        bodies = pack(bodies, "\n\n")
    blocks.extend(section(body) for body in bodies or ["_The plan has no steps._"])

    blocks.extend(applied_lessons(state.lessons_applied, state.id))
    blocks.extend(context(escape(line)) for line in view.gate_lines)
    buttons = [
        button("Approve", ids.APPROVE, review.id, style="primary"),
        button("Request changes", ids.REJECT, review.id),
    ]
    if any(t.truncated for t in texts):
        buttons.append(details_button(review.id))
    blocks.append(actions(*buttons, cancel_button(review.id)))
    return blocks
