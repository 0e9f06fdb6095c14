"""What the quality benches share: where their data lives, a model whose calls are counted, labeled
replies read from a file, and an even slice of a set."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

from agent.ports import ChatModel, LLMRequest

T = TypeVar("T")
DATA = Path(__file__).parent / "data"


class CountingModel:
    """The model, with every call counted and timed."""

    def __init__(self, model: ChatModel) -> None:
        self.model = model
        self.name = model.name
        self.calls = 0
        self.seconds: list[float] = []

    async def complete(self, request: LLMRequest) -> str:
        self.calls += 1
        started = time.perf_counter()
        try:
            return await self.model.complete(request)
        finally:
            self.seconds.append(time.perf_counter() - started)

    @property
    def offline(self) -> bool:
        return self.name == "offline"

    @property
    def model_calls(self) -> int:
        """Calls to a real model (the offline model is not one)."""
        return 0 if self.offline else self.calls

    @property
    def per_call(self) -> float:
        """Mean seconds per call (0 before any)."""
        return sum(self.seconds) / len(self.seconds) if self.seconds else 0.0


L = TypeVar("L", bound="Labeled")


class Labeled(Protocol):
    @property
    def intent(self) -> str: ...

    @property
    def anchor(self) -> str: ...


def load_labeled(path: Path, kind: Callable[..., L], intents: Sequence[str], anchors: Sequence[str]) -> list[L]:
    """One labeled reply per line of ``path``; a line that is not one, or has an unknown intent or anchor,
    stops the bench with its number."""
    items = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = kind(**json.loads(line))
        except (ValueError, TypeError) as exc:
            raise SystemExit(f"{path.name} line {number} is not a labeled reply: {exc}") from None
        if item.intent not in intents or item.anchor not in anchors:
            raise SystemExit(f"{path.name} line {number}: unknown intent or anchor in {line}")
        items.append(item)
    return items


def spread(items: list[T], limit: int | None) -> list[T]:
    """``limit`` items taken evenly over the set (so a slice still covers every anchor and language)."""
    if limit is None or limit >= len(items):
        return items
    stride = len(items) / limit
    return [items[int(i * stride)] for i in range(limit)]
