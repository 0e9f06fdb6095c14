"""An MCP server's question (``elicitation/create``) as a handoff carries it: which field of which form it
asks, and what goes back to the server with the answer.

On a 2026-07-28 connection a server asks by answering a tool call with ``input_required``: its questions
and an opaque ``requestState``. Nothing waits on either side: the state is stored here, with the question,
and the call is made again with the answers and the state once people have answered (see
:mod:`agent.mcptools.elicit`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from agent.models.base import Model

ElicitMode = Literal["form", "url"]


def not_replies(answers: list[Any]) -> list[Any]:
    """``answers`` without the answers to MCP servers' questions: a call that failed is made afresh when its step
    runs again (its state is spent, or refused), so the server asks again."""
    return [a for a in answers if not (isinstance(a, dict) and "elicitation" in a)]


class Elicitation(Model):
    server: str
    key: str
    """The input request's key in the server's ``inputRequests`` (the answer goes back under it)."""
    state: str | None = None
    """The server's ``requestState``, echoed back byte for byte."""
    mode: ElicitMode = "form"
    field: str | None = None
    """The form property this question asks (None in URL mode)."""
    url: str | None = None
    """Where a URL-mode question sends the person."""
    kind: str = "string"
    """The property's JSON type: ``string``, ``number``, ``integer`` or ``boolean``."""
    requests: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """Every question of the round, by key, as the server sent it (``elicitation/create`` params): the rest
    of the round is asked from these, one field at a time."""

    def typed(self, value: Any) -> Any:
        """A person's answer as the server's schema wants it, or ValueError saying what is wrong."""
        if self.kind not in ("number", "integer") or isinstance(value, bool):
            return value
        text = str(value).strip()
        try:
            number = float(text)
        except ValueError:
            raise ValueError(f"{text!r} is not a number") from None
        if self.kind == "integer":
            if not number.is_integer():
                raise ValueError(f"{text!r} is not a whole number")
            return int(number)
        return int(number) if number.is_integer() and "." not in text else number

    def reply(self, value: Any, *, declined: bool = False) -> dict[str, Any]:
        """What a step keeps of the answer: the answer with the question it answers (or that it was declined)."""
        kept = {"elicitation": self.model_dump(), "value": value}
        return {**kept, "declined": True} if declined else kept
