"""Counting model calls and tokens for one piece of work, so the audit trail can record them.

The runtime opens a tally around each piece of work (:func:`counting`); the brain notes
each request it sends (:func:`note_call`) and the litellm wrapper the tokens the provider
reported (:func:`note_tokens`). Outside a tally nothing is counted. The tally lives in a
context variable, so concurrent runs on one event loop never mix their counts.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

__all__ = ["Tally", "counting", "note_call", "note_tokens"]


@dataclass
class Tally:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reported: bool = False  # the provider said how many tokens (the offline model does not)
    model: str = ""

    def payload(self) -> dict[str, Any]:
        """What the audit line keeps (tokens only when the provider reported them)."""
        data: dict[str, Any] = {"model": self.model, "calls": self.calls}
        if self.reported:
            data["prompt_tokens"] = self.prompt_tokens
            data["completion_tokens"] = self.completion_tokens
        return data


_current: ContextVar[Tally | None] = ContextVar("tandem_usage", default=None)


@contextmanager
def counting() -> Iterator[Tally]:
    """Count the model calls made inside the block (nested blocks count into their own tally only)."""
    tally = Tally()
    token = _current.set(tally)
    try:
        yield tally
    finally:
        _current.reset(token)


def note_call(model: str) -> None:
    tally = _current.get()
    if tally is not None:
        tally.calls += 1
        tally.model = model


def note_tokens(prompt: int, completion: int) -> None:
    tally = _current.get()
    if tally is not None:
        tally.prompt_tokens += max(0, prompt)
        tally.completion_tokens += max(0, completion)
        tally.reported = True
