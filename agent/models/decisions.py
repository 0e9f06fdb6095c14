"""Decisions a person makes at a review, and how the classifier read their free text."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from agent.models.base import Model, Tagged
from agent.models.steps import PlannedStep

Intent = Literal["replan", "retry_step", "refine_output"]


class Approve(Tagged):
    kind: Literal["approve"] = "approve"
    remember: bool = False  # "approve and always allow": the policy decides whether it may


class Cancel(Tagged):
    kind: Literal["cancel"] = "cancel"
    reason: str = ""


class Correct(Tagged):
    kind: Literal["correct"] = "correct"
    intent: Intent
    target_step: int | None = None
    feedback: str
    suggested_fix: str | None = None

    def noted_for_result(self, anchor: str) -> bool:
        """A wish about the result's presentation where nothing can be presented yet: it changes nothing now and
        is kept for the result (a plan is replanned, a step not yet run is changed instead)."""
        return self.intent == "refine_output" and anchor not in _REFINED_AT


_REFINED_AT = frozenset({"before_result", "after_plan", "before_risky_step", "recovery"})


class Instruct(Tagged):
    """In human takeover: one instruction, which becomes at most one proposed step."""

    kind: Literal["instruct"] = "instruct"
    text: str


class Finish(Tagged):
    kind: Literal["finish"] = "finish"


class HandBack(Tagged):
    kind: Literal["hand_back"] = "hand_back"
    note: str = ""


class Answer(Tagged):
    """The answer to a handoff (validated against its input type before it applies). ``declined``: the person
    declines to answer an MCP server's question (the server gets ``decline``; ``value`` is None)."""

    kind: Literal["answer"] = "answer"
    value: Any
    declined: bool = False


Decision = Annotated[Approve | Cancel | Correct | Instruct | Finish | HandBack | Answer, Field(discriminator="kind")]


class Reading(Model):
    """How the classifier read a person's free text. A ``question`` asks about the run and decides nothing."""

    intent: Literal["approve", "cancel", "replan", "retry_step", "refine_output", "question"]
    target_step: int | None = None
    reason: str = ""
    confidence: float = 0.5
    suggested_fix: str | None = None
    fallback: bool = False  # the model's answer was unreadable: the documented retry_step fallback

    def to_decision(self, text: str) -> Approve | Cancel | Correct | None:
        """The decision the text makes; None for a question, which is answered and decides nothing."""
        if self.intent == "question":
            return None
        if self.intent == "approve":
            return Approve()
        if self.intent == "cancel":
            return Cancel(reason=text)
        return Correct(
            intent=self.intent, target_step=self.target_step, feedback=text, suggested_fix=self.suggested_fix
        )


class TakeoverReading(Model):
    """How a person's instruction during takeover was read."""

    kind: Literal["step", "finish", "hand_back", "cancel", "unclear"]
    step: PlannedStep | None = None
    message: str = ""
