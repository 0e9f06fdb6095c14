"""An answer from the inbox: the same choices as in chat, made through the same use cases.

A form names one choice; :func:`answer` calls the use case a chat button calls for it, and :func:`told` says what
came of it, one sentence per outcome, with the HTTP status that fits.
"""

from __future__ import annotations

from typing import Literal, assert_never

from pydantic import BaseModel, Field

from agent.models import Cancel, Correct
from agent.usecases import (
    INTENTS,
    AlreadyDecided,
    Answered,
    Applied,
    Asked,
    NeedsButton,
    NotApplied,
    Outcome,
    Refused,
    UseCases,
)
from inbox_web import words

Choice = Literal["approve", "approve_always", "request_changes", "cancel", "answer", "decline"]


class AnswerForm(BaseModel, extra="forbid"):
    choice: Choice
    intent: str = ""
    feedback: str = Field(default="", max_length=3000)
    value: str = Field(default="", max_length=3000)


async def answer(usecases: UseCases, review_id: str, step: int | None, form: AnswerForm, by: str) -> Outcome:
    """What the chat button for ``form.choice`` does, by ``by`` (permission is checked before anything is written)."""
    match form.choice:
        case "approve":
            return await usecases.approve(review_id, by)
        case "approve_always":
            return await usecases.approve_always(review_id, by)
        case "cancel":
            return await usecases.decide(review_id, Cancel(reason=form.feedback.strip()), by)
        case "answer":
            if not form.value.strip():
                return NotApplied(words.EMPTY_ANSWER)
            return await usecases.answer(review_id, form.value, by)
        case "decline":  # an MCP server's question: the server gets decline (refused on any other question)
            return await usecases.decline(review_id, by)
        case "request_changes":
            intent = next((i for i in INTENTS if i == form.intent), None)
            if intent is None:
                return NotApplied(words.PICK_INTENT)
            if not form.feedback.strip():
                return NotApplied(words.EMPTY_FEEDBACK)
            return await usecases.decide(
                review_id, Correct(intent=intent, target_step=step, feedback=form.feedback), by
            )
        case _:
            assert_never(form.choice)


def told(outcome: Outcome, choice: Choice) -> tuple[int, str]:
    """The HTTP status and the sentence a person reads after ``choice``."""
    match outcome:
        case Applied():
            return 200, words.DONE[choice]
        case Asked(reading=reading):
            return 202, words.asked(reading.intent)
        case Answered(answer=text):
            return 202, text
        case Refused(refusal=refusal):
            return 403, refusal.describe()
        case AlreadyDecided(message=message, by=by):
            return 409, words.already(message, by)
        case NeedsButton(message=message):
            return 409, message
        case NotApplied(message=message, why=why):
            return (404 if why == "unknown_review" else 422), message
        case _:
            assert_never(outcome)
