"""A tool's question to a person (``human.ask``): choice → buttons or a select,
text → a button that opens a modal, confirm → Yes / No; an MCP server's form question also has Decline."""

from __future__ import annotations

import json
from typing import Any

from slack_sdk.models.blocks import (
    ActionsBlock,
    ButtonElement,
    InputBlock,
    Option,
    PlainTextInputElement,
    StaticSelectElement,
)
from slack_sdk.models.views import View

from agent.models import Review, RunState
from blocks import ids
from blocks.text import Blocks, as_text, cancel_button, clip, context, escaped, mention, section, step_title, when

MAX_BUTTONS = 5
_PRIORITY = {"low": "", "normal": "", "high": "❗ High priority · ", "urgent": "🚨 Urgent · "}


def answer_value(review_id: str, answer: Any) -> str:
    return json.dumps({"review": review_id, "answer": answer}, separators=(",", ":"))


def handoff(state: RunState, review: Review) -> Blocks:
    """The question message with its answer controls; a question closed before it was shown (its run cancelled
    first: only the open review carries the question) says so, with no controls."""
    h = review.handoff
    if h is None:
        return [section("*Tandem needed an answer*"), context("This question was closed before it was shown.")]
    step = state.step(review.step) if review.step is not None else None
    lead = f"{_PRIORITY[h.priority]}*Tandem needs an answer*"
    if step is not None:
        lead += f" · asked by {step_title(step)}"
    blocks: Blocks = [section(lead), section(escaped(h.prompt, 2900))]
    facts = []
    if h.reason:
        facts.append(f"Why: {escaped(h.reason, 200)}")
    if review.assignees:
        facts.append("Asked: " + ", ".join(mention(a) for a in review.current_assignees))
    if review.deadline is not None:
        facts.append(f"Answer by {when(review.deadline)}")
    if h.default is not None and review.strategy == "use_default":
        facts.append(f"Default if nobody answers: {escaped(as_text(h.default), 100)}")
    if facts:
        blocks.append(context(" · ".join(facts)))
    if h.context:
        blocks.append(context(clip(json.dumps(h.context, ensure_ascii=False, default=str), 1500).text))
    blocks.append(_controls(review))
    return blocks


def _controls(review: Review) -> dict[str, Any]:
    h = review.handoff
    assert h is not None
    elements: list[Any]
    link = h.elicitation.url if h.elicitation is not None else None
    if h.input_type == "confirm" and link:  # an MCP server's URL-mode question: open it, then done or decline
        elements = [
            ButtonElement(text="Open link", action_id=ids.OPEN_LINK, url=link[:3000]),
            ButtonElement(text="Done", action_id=ids.ANSWER, value=answer_value(review.id, True), style="primary"),
            ButtonElement(text="Decline", action_id=f"{ids.ANSWER}.no", value=answer_value(review.id, False)),
        ]
    elif h.input_type == "confirm":
        elements = [
            ButtonElement(text="Yes", action_id=ids.ANSWER, value=answer_value(review.id, True), style="primary"),
            ButtonElement(text="No", action_id=f"{ids.ANSWER}.no", value=answer_value(review.id, False)),
        ]
    elif h.input_type == "choice" and len(h.options) <= MAX_BUTTONS:
        elements = [
            ButtonElement(
                text=clip(option, 70).text, action_id=f"{ids.ANSWER}.{i}", value=answer_value(review.id, option)
            )
            for i, option in enumerate(h.options)
        ]
    elif h.input_type == "choice":
        options = [Option(value=answer_value(review.id, o), text=clip(o, 70).text) for o in h.options[:100]]
        elements = [StaticSelectElement(action_id=ids.ANSWER_SELECT, placeholder="Choose…", options=options)]
    elif h.input_type == "number":  # the modal checks the number before it closes (see bot.handoffs)
        value = json.dumps({"review": review.id, "number": True}, separators=(",", ":"))
        elements = [ButtonElement(text="Answer", action_id=ids.ANSWER_TEXT, value=value, style="primary")]
    else:
        elements = [ButtonElement(text="Answer", action_id=ids.ANSWER_TEXT, value=review.id, style="primary")]
    if h.offers_decline:  # an MCP server's form: the server gets decline
        decline = json.dumps({"review": review.id, "decline": True}, separators=(",", ":"))
        elements.append(ButtonElement(text="Decline", action_id=f"{ids.ANSWER}.decline", value=decline))
    elements.append(cancel_button(review.id))
    return ActionsBlock(block_id=f"handoff:{review.id}", elements=elements).to_dict()


def answer_modal(private_metadata: str, *, prompt: str | None = None, number: bool = False) -> dict[str, Any]:
    """The text (or ``number``) answer modal (callback ANSWER_MODAL); opened at once, so it needs no stored data."""
    field = InputBlock(
        block_id=ids.ANSWER_BLOCK,
        label="Your answer (a number)" if number else "Your answer",
        element=PlainTextInputElement(action_id=ids.ANSWER_ACTION, multiline=not number, max_length=3000),
    )
    lead = escaped(prompt, 2900) if prompt else "Answer the question in the thread."
    view = View(
        type="modal",
        callback_id=ids.ANSWER_MODAL,
        title="Answer Tandem",
        submit="Send",
        close="Cancel",
        private_metadata=private_metadata,
        blocks=[section(lead), field.to_dict()],
    )
    return view.to_dict()
