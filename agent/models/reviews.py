"""Reviews: a pending request for a person's decision, and the handoff question it may carry."""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import Field

from agent.models.base import Model
from agent.models.elicitation import Elicitation
from agent.models.policy import Anchor
from agent.models.rules import AlwaysOffer

InputType = Literal["choice", "text", "confirm", "number"]
Priority = Literal["low", "normal", "high", "urgent"]

DECLINE_WORDS = ("decline", "declined", "i decline", "拒绝回答", "不提供")
"""A whole reply that declines an MCP server's question (exact words only: anything else is an answer)."""

ASK_TOOL = "human.ask"
"""The tool of a run asked through the API (see :mod:`agent.machine.asked`): its one step is answered, never run."""


class Handoff(Model):
    """A structured question a tool (or the loop itself) puts to a person."""

    prompt: str
    input_type: InputType = "text"
    options: list[str] = Field(default_factory=list)
    context: dict[str, Any] = Field(default_factory=dict)
    reason: str = ""
    priority: Priority = "normal"
    default: Any = None
    max_length: int = 3000
    call: int = 0
    callback_url: str | None = None
    """Where the decision is POSTed, signed (a handoff asked through the API with a ``callback_url``)."""
    elicitation: Elicitation | None = None
    """An MCP server's question: what goes back to the server with the answer."""

    @property
    def declinable(self) -> bool:
        """An MCP server's question may be declined (the server gets ``decline``), on every path."""
        return self.elicitation is not None

    @property
    def offers_decline(self) -> bool:
        """Whether a card shows a Decline button beside the answer: a form's question (a URL-mode question's
        own No is its Decline)."""
        return self.elicitation is not None and self.elicitation.mode == "form"

    def declines(self, text: str) -> bool:
        """Whether a reply declines this question: only a declinable one, only explicit words."""
        said = " ".join(text.split()).strip(" .!。！").casefold()
        return self.declinable and said in DECLINE_WORDS

    def validate_answer(self, value: Any) -> Any:
        """The answer in its canonical form, or ValueError saying what is wrong."""
        if self.input_type == "choice":
            if not isinstance(value, str) or value not in self.options:
                raise ValueError(f"{value!r} is not one of the options: {', '.join(self.options)}")
            return value
        if self.input_type == "confirm":
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("yes", "y", "true", "confirm", "是", "确认"):
                return True
            if text in ("no", "n", "false", "否", "取消"):
                return False
            raise ValueError(f"{value!r} is not a yes or no")
        if self.input_type == "number":
            return as_number(value)
        if self.elicitation is not None:  # an MCP server's field: typed as its schema says
            number = isinstance(value, int | float) and not isinstance(value, bool)
            return self.elicitation.typed(value if number else self._text(value))
        return self._text(value)

    def _text(self, value: Any) -> str:
        if not isinstance(value, str) or not value.strip():
            raise ValueError("the answer is empty; type an answer")
        if len(value) > self.max_length:
            raise ValueError(f"the answer is {len(value)} characters; the limit is {self.max_length}")
        return value.strip()


def as_number(value: Any) -> int | float:
    """A number answer: an int or float as given, or text like ``42``, ``-3.5``, ``1e3``, ``1,200`` (a whole
    number comes back an int); ValueError saying so for anything else (a bool, NaN, infinity, words)."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a number; type a number, like 42 or 3.5")
    if isinstance(value, int):
        return value
    text = value if isinstance(value, str) else repr(value)
    if isinstance(value, float):
        number = value
    else:
        cleaned = text.strip().replace(",", "").replace("_", "")
        try:
            number = float(cleaned)
        except ValueError:
            raise ValueError(f"{clipped(text)!r} is not a number; type a number, like 42 or 3.5") from None
    if not math.isfinite(number):
        raise ValueError(f"{clipped(text)!r} is not a finite number; type a number, like 42 or 3.5")
    if isinstance(value, str) and number.is_integer() and not any(c in cleaned for c in ".eE"):
        return int(cleaned)
    return number


def clipped(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Approval(Model):
    by: str
    at: float
    digest: str | None = None


class LastAsked(Model):
    """The last review a run asked, as far as evidence goes: which steps' outcomes it showed."""

    anchor: Anchor
    step: int | None = None
    evidence: list[int] = Field(default_factory=list)
    seen: dict[int, int] = Field(default_factory=dict)  # step number -> the attempt whose outcome was shown


class Review(Model):
    """A pending request for a person's decision. Its id is what buttons carry."""

    id: str
    anchor: Anchor
    step: int | None = None
    digest: str | None = None
    note: str | None = None
    created_at: float
    handoff: Handoff | None = None
    assignees: list[str] = Field(default_factory=list)
    assignee_index: int = 0
    quorum: int = 1
    approvals: list[Approval] = Field(default_factory=list)
    deadline: float | None = None
    remind_at: float | None = None
    strategy: Literal["cancel", "reassign", "use_default", "pause", "degrade", "escalate"] | None = None
    default: Any = None
    stale: bool = False
    escalated: bool = False
    offer: AlwaysOffer | None = None  # a gate earned the "always allow" offer (see SafetyPolicy.always_offer)
    evidence: list[int] = Field(default_factory=list)  # the steps whose outcomes this review shows (agent.evidence)

    @property
    def current_assignees(self) -> list[str]:
        """Who is asked right now (reassignment walks the list)."""
        if not self.assignees:
            return []
        return (
            [self.assignees[min(self.assignee_index, len(self.assignees) - 1)]] if self.reassigned else self.assignees
        )

    @property
    def reassigned(self) -> bool:
        return self.assignee_index > 0
