"""A brain that plans fixed steps and reads every reply one way, for use-case tests that are about
something else than planning (who may decide, where a run lives).

    FixedBrain([("peek", {"service": "api"}), ("bounce", {"service": "api"})])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent.models import PlannedStep, ProposedStep, Reading, Step, TakeoverReading
from agent.ports import ClassifyContext
from agent.tools import ToolRegistry

__all__ = ["FixedBrain"]

YES = Reading(intent="approve", reason="a yes", confidence=0.95)


class FixedBrain:
    """Plans ``steps`` (tool, params) for every task; reads every reply as ``reading``; its result is
    the steps' results joined."""

    def __init__(self, steps: Sequence[tuple[str, dict[str, Any]]], reading: Reading = YES) -> None:
        self.steps = list(steps)
        self.reading = reading

    async def plan(self, task: str, tools: ToolRegistry, **_: Any) -> list[ProposedStep]:
        return [ProposedStep(tool=n, params=p, reason="r", risk=tools.get(n).risk) for n, p in self.steps]

    async def revise_step(self, task: str, step: Step, tools: ToolRegistry, **_: Any) -> dict[str, Any]:
        return step.params

    async def summarize(self, task: str, steps: list[Step], notes: list[str]) -> str:
        return "; ".join(str(s.result) for s in steps)

    async def refine(self, task: str, output: str, feedback: str, steps: list[Step]) -> str:
        return output

    async def classify(self, text: str, context: ClassifyContext) -> Reading:
        return self.reading

    async def propose(self, instruction: str, task: str, steps: list[Step], tools: ToolRegistry) -> TakeoverReading:
        tool, params = self.steps[0]
        return TakeoverReading(kind="step", step=PlannedStep(tool=tool, params=params))
