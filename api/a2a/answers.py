"""An A2A answer to a task's pending review, parsed into the use case a button or a thread reply makes.

The answer names the review it answers (``review_id``, from the INPUT_REQUIRED message's data), so a replayed
answer finds that review decided and changes nothing, and never lands on whatever the run asks next. It picks
one of the review's choices (``choice``, with ``feedback``/``intent``, ``answer`` or ``text`` where the choice
needs them); free text alone is read as a thread reply is.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any

from a2a.helpers.proto_helpers import get_data_parts, get_message_text
from a2a.types import Message
from google.protobuf.json_format import MessageToDict

from agent.models import Cancel, Correct, Finish, HandBack
from agent.usecases import INTENTS, Outcome, UseCases

HOW = (
    'answer with a data part {"review_id": …, "choice": …} (both from the task\'s INPUT_REQUIRED message), '
    'or with text and metadata {"review_id": …}'
)


class BadAnswer(ValueError):
    """The answer cannot be applied as sent (the door answers 'invalid params' with it)."""


@dataclass(frozen=True)
class Answer:
    review_id: str
    fields: dict[str, Any]
    text: str


def parse(message: Message) -> Answer:
    """The answer ``message`` carries; BadAnswer saying what is missing."""
    fields: dict[str, Any] = {}
    if message.HasField("metadata"):
        fields.update(MessageToDict(message.metadata))
    for data in get_data_parts(message.parts):
        if isinstance(data, dict):
            fields.update(data)
    text = " ".join(get_message_text(message, " ").split())
    review = fields.get("review_id")
    if not isinstance(review, str) or not review:
        raise BadAnswer(f"This answer names no review, so nothing changed: {HOW}.")
    return Answer(review, fields, text)


def _said(answer: Answer, name: str) -> str:
    value = answer.fields.get(name, answer.text)
    return " ".join(str(value).split()) if value is not None else ""


def apply(usecases: UseCases, run_id: str, answer: Answer, by: str) -> Awaitable[Outcome]:
    """The use case ``answer`` makes, as ``by`` (the same one a click or a reply makes); BadAnswer when incomplete."""
    review, choice = answer.review_id, answer.fields.get("choice")
    match choice:
        case "approve":
            return usecases.approve(review, by)
        case "approve_always":
            return usecases.approve_always(review, by)
        case "cancel":
            return usecases.decide(review, Cancel(reason=_said(answer, "reason")), by)
        case "finish":
            return usecases.decide(review, Finish(), by)
        case "hand_back":
            return usecases.decide(review, HandBack(), by)
        case "answer":
            if "answer" not in answer.fields and not answer.text:
                raise BadAnswer("choice 'answer' needs the answer: give it in 'answer' (one of the options if any).")
            value = answer.fields.get("answer", answer.text)
            return usecases.answer(review, value if isinstance(value, str) else str(value), by)
        case "decline":  # an MCP server's question (refused on any other)
            return usecases.decline(review, by)
        case "request_changes":
            feedback, intent = _said(answer, "feedback"), answer.fields.get("intent")
            if not feedback:
                raise BadAnswer("choice 'request_changes' needs 'feedback': say what should change.")
            chosen = next((i for i in INTENTS if i == intent), None)
            if chosen is not None:
                step = answer.fields.get("step")
                target = int(step) if isinstance(step, int | float) else None
                return usecases.decide(review, Correct(intent=chosen, target_step=target, feedback=feedback), by)
            return usecases.say(run_id, feedback, by, review_id=review, rejecting=True)
        case "instruct" | None:
            text = _said(answer, "text")
            if not text:
                raise BadAnswer(f"This answer has no choice and no text, so nothing changed: {HOW}.")
            return usecases.say(run_id, text, by, review_id=review)
        case _:
            raise BadAnswer(f"{choice!r} is not a choice Tandem offers; the task's question lists its choices.")
