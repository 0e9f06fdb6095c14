"""A scripted brain and counting tools for runtime tests.

Nothing here is mutable and shared: each test builds its own :class:`Counting` (the calls its tools
made) and its own runtime with :func:`make`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent.models import PlannedStep, Policy, ProposedStep, Reading, Step, TakeoverReading
from agent.ports import ClassifyContext
from agent.runtime import Runtime
from agent.tools import Risk, ToolRegistry, tool
from storage.facade import AsyncStore

Plan = list[tuple[str, dict[str, Any]]]

GATE_FIRST = Policy(anchors=frozenset({"before_result"}))
RISKY_PLAN: tuple[tuple[str, dict[str, Any]], ...] = (
    ("look", {"service": "api"}),
    ("look", {"service": "db"}),
    ("ship", {"service": "api", "version": "2.0"}),
)


@dataclass
class Counting:
    """One test's tools (a read, a deploy, one that fails, one that sleeps) and the calls they completed."""

    calls: dict[str, int] = field(default_factory=dict)
    slow_started: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the sleeping tool begins: a step is in flight."""

    def count(self, name: str) -> None:
        self.calls[name] = self.calls.get(name, 0) + 1

    def registry(self) -> ToolRegistry:
        @tool(risk=Risk.READ)
        def look(service: str) -> str:
            """Look at a service."""
            self.count("look")
            return f"{service} is fine"

        @tool(risk=Risk.DEPLOY)
        def ship(service: str, version: str) -> str:
            """Deploy a version."""
            self.count("ship")
            return f"{service} now at {version}"

        @tool(risk=Risk.READ)
        def broken(service: str) -> str:
            """Always fails."""
            raise RuntimeError(f"{service} unreachable")

        @tool(risk=Risk.READ)
        async def slow(seconds: float) -> str:
            """Sleeps."""
            self.slow_started.set()
            await asyncio.sleep(seconds)
            self.count("slow")
            return "slept"

        registry = ToolRegistry()
        fns: tuple[Callable[..., Any], ...] = (look, ship, broken, slow)
        for fn in fns:
            registry.add_function(fn)
        return registry


class FakeBrain:
    def __init__(self, plans: list[Plan], reading: Reading | None = None) -> None:
        self.plans = plans
        self.reading = reading or Reading(intent="approve", reason="sounds like a yes", confidence=0.9)
        self.classified: list[str] = []

    async def plan(self, task: str, tools: ToolRegistry, **_: Any) -> list[ProposedStep]:
        steps = self.plans.pop(0)
        return [
            ProposedStep(tool=name, params=tools.get(name).validate(p), reason="r", risk=tools.get(name).risk)
            for name, p in steps
        ]

    async def revise_step(self, task: str, step: Step, tools: ToolRegistry, **_: Any) -> dict[str, Any]:
        return {**step.params, "version": "9.9"} if "version" in step.params else step.params

    async def summarize(self, task: str, steps: list[Step], notes: list[str]) -> str:
        return "; ".join(f"{s.tool}: {s.result or s.error}" for s in steps)

    async def refine(self, task: str, output: str, feedback: str, steps: list[Step]) -> str:
        return output.upper()

    async def classify(self, text: str, context: ClassifyContext) -> Reading:
        self.classified.append(text)
        return self.reading

    async def propose(self, instruction: str, task: str, steps: list[Step], tools: ToolRegistry) -> TakeoverReading:
        return TakeoverReading(kind="step", step=PlannedStep(tool="look", params={"service": "auth"}))


def make(
    store: AsyncStore, counting: Counting, *plans: Plan | tuple[tuple[str, dict[str, Any]], ...], **kw: Any
) -> Runtime:
    """A runtime over ``store`` whose brain plans ``plans`` in turn (unless ``brain=`` is given)."""
    brain = kw.pop("brain", None) or FakeBrain([list(p) for p in plans])
    return Runtime(store, brain, counting.registry(), **kw)
