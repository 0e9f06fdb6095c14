"""Modals: Request changes (feedback with an intent) and Show details (long text, paged into sections)."""

from __future__ import annotations

from typing import Any, assert_never

from slack_sdk.models.blocks import (
    InputBlock,
    MarkdownTextObject,
    Option,
    PlainTextInputElement,
    PlainTextObject,
    RadioButtonsElement,
)
from slack_sdk.models.views import View

from agent.correction_messages import step_fix_effect
from agent.messages import plural
from agent.models import Anchor, Review, RunState, Step
from blocks import ids
from blocks.ids import IntentChoice
from blocks.limits import MAX_INPUT_LENGTH, MAX_PRIVATE_METADATA, MAX_SECTION_TEXT, BlockLimitError
from blocks.text import (
    Blocks,
    as_text,
    context,
    escape,
    escaped,
    fit_escaped,
    params_json,
    risk_badge,
    section,
    step_of,
    step_title,
    truncate,
)

View_ = dict[str, Any]

INTENT_OPTIONS: dict[IntentChoice, tuple[str, str]] = {
    "replan": ("*The plan's direction*", "Tandem drafts a new plan."),
    "retry_step": ("*This step's parameters*", "Tandem fixes the step and runs it again."),
    "refine_output": ("*Only the output's format*", "Same result, presented differently."),
    "auto": ("*Let Tandem decide*", "Tandem reads your note and picks one of the above."),
}
DETAIL_SECTIONS_MAX = 20  # ~58,000 characters of text; plenty for a details view


def _option(value: IntentChoice, anchor: Anchor | None) -> Option:
    label, description = INTENT_OPTIONS[value]
    if value == "retry_step" and anchor is not None:
        description = step_fix_effect(anchor)
    return Option(value=value, text=MarkdownTextObject(text=label), description=PlainTextObject(text=description))


def feedback_modal(
    private_metadata: str,
    *,
    initial_feedback: str = "",
    initial_intent: IntentChoice = "auto",
    subject: str | None = None,
    anchor: Anchor | None = None,
) -> View_:
    """The Request changes modal. ``private_metadata`` comes back unchanged on submit.

    ``subject`` (plain text, e.g. "Plan for: restart payments") is shown on top;
    ``initial_feedback`` pre-fills the text box (used by "Not what I meant");
    ``anchor``: the review it answers, so each choice says what it does there.
    """
    if len(private_metadata) > MAX_PRIVATE_METADATA:
        raise BlockLimitError(f"private_metadata is {len(private_metadata)} characters, over {MAX_PRIVATE_METADATA}")
    options = [_option(value, anchor) for value in ids.INTENT_CHOICES]
    intent = InputBlock(
        block_id=ids.INTENT_BLOCK,
        label="What needs to change?",
        element=RadioButtonsElement(
            action_id=ids.INTENT_ACTION,
            options=options,
            initial_option=options[ids.INTENT_CHOICES.index(initial_intent)],
        ),
    )
    feedback = InputBlock(
        block_id=ids.FEEDBACK_BLOCK,
        label="What should Tandem do differently?",
        element=PlainTextInputElement(
            action_id=ids.FEEDBACK_ACTION,
            multiline=True,
            max_length=MAX_INPUT_LENGTH,
            initial_value=truncate(initial_feedback, MAX_INPUT_LENGTH) if initial_feedback else None,
            placeholder="e.g. Use eu-west-1, not us-east-1",
        ),
    )
    blocks: Blocks = [context(escaped(subject, 500))] if subject else []
    blocks += [intent.to_dict(), feedback.to_dict()]
    view = View(
        type="modal",
        callback_id=ids.FEEDBACK_MODAL,
        title="Request changes",
        submit="Send",
        close="Cancel",
        blocks=blocks,
        private_metadata=private_metadata,
    )
    return view.to_dict()


def _pages(text: str, *, code: bool) -> tuple[list[str], int]:
    """``text`` split into section texts (escaped, fenced if ``code``); and how many characters fit."""
    room = MAX_SECTION_TEXT - (6 if code else 0)
    body = text.replace("```", "`\u200b``") if code else text
    pages: list[str] = []
    shown = 0
    while shown < len(body) and len(pages) < DETAIL_SECTIONS_MAX:
        piece = fit_escaped(body[shown : shown + room], room)
        if shown + len(piece) < len(body) and "\n" in piece[len(piece) // 2 :]:
            piece = piece[: piece.rindex("\n") + 1]
        shown += len(piece)
        pages.append(f"```{escape(piece)}```" if code else escape(piece))
    return pages or ["_(empty)_"], min(shown, len(text))


def details_modal(title: str, text: str, *, heading: str | None = None, code: bool = True) -> View_:
    """Long text in a modal: code blocks (or escaped mrkdwn) over as many sections as it needs.

    ``heading`` is trusted mrkdwn shown above the text.
    """
    pages, shown = _pages(text, code=code)
    blocks: Blocks = [section(heading)] if heading else []
    blocks += [section(page) for page in pages]
    if shown < len(text):
        blocks.append(context(f"Showing the first {shown:,} of {len(text):,} characters."))
    view = View(type="modal", callback_id=ids.DETAILS_MODAL, title=truncate(title, 24), close="Close", blocks=blocks)
    return view.to_dict()


def _step_text(step: Step) -> str:
    lines = [f"{step.number}. {step.tool} ({step.risk.label})", params_json(step.params)]
    if step.reason:
        lines.append(f"why: {step.reason}")
    return "\n".join(lines)


def result_details(state: RunState) -> View_:
    """The written result in full, then every step's full output (a result review's, or a done run's)."""
    ran = [s for s in state.plan if s.result is not None or s.error]
    outputs = "\n\n".join(f"{_step_text(s)}\n→ {as_text(s.error or s.result)}" for s in ran)
    text = (state.output or "") + (f"\n\n*Full step outputs*\n\n{outputs}" if outputs else "")
    return details_modal("Result", text, code=False)


def review_details(state: RunState, review: Review) -> View_:
    """The details modal behind a review's Show details button: the full text that was cut."""
    step = step_of(state, review)
    heading = f"*Step {step.number}* · {step_title(step)}" if step else None
    match review.anchor:
        case "after_plan":
            top = max((s.risk for s in state.plan), default=None)
            plan_heading = f"*Plan* · {plural(len(state.plan), 'step')}" + (
                f" · up to {risk_badge(top)}" if top else ""
            )
            text = "\n\n".join(_step_text(s) for s in state.plan)
            return details_modal("Plan details", text, heading=plan_heading)
        case "before_result":
            return result_details(state)
        case "takeover":
            ran = [s for s in state.plan if s.status != "pending"]
            text = "\n\n".join(f"{_step_text(s)}\n→ {as_text(s.error or s.result)}" for s in ran)
            return details_modal("Done so far", text or "Nothing has run yet.")
        case "before_risky_step" | "takeover_step" | "recovery":
            return details_modal("Step details", params_json(step.params) if step else "", heading=heading)
        case "after_risky_step":
            output = as_text(step.result) if step and step.result is not None else ""
            return details_modal("Step output", output, heading=heading)
        case "step_failed":
            return details_modal("Step error", (step.error or "") if step else "", heading=heading)
        case "handoff":
            handoff = review.handoff
            text = handoff.prompt if handoff else ""
            if handoff and handoff.context:
                text += "\n\n" + params_json(handoff.context)
            return details_modal("Question", text, heading=heading)
        case _:
            assert_never(review.anchor)
