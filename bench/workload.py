"""The benchmark workload: the task, its expected plan and anchors, the tools and the brain.

Shared by the benchmark (:mod:`bench.loop`) and the cold-start child (:mod:`bench.coldstart`),
so it imports only what a real resume needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from agent.config import AnchorsRule, PolicyConfig
from agent.errors import PlanError, ReviseError
from agent.models import Lesson, PlannedStep, ProposedStep, Reading, Step, TakeoverReading
from agent.ports import Brain, ClassifyContext
from agent.tools import ToolRegistry, load_tools

BrainKind = Literal["llm", "fixed"]

TOOL_MODULE = "bench.tools"
TASK = "check the status of api, then read the logs of api, then deploy api 2.4.2"
# The risky step is last, so the default policy's after_risky_step anchor does not apply.
EXPECTED_PLAN: tuple[tuple[str, dict[str, Any]], ...] = (
    ("check_status", {"service": "api"}),
    ("read_logs", {"service": "api", "limit": 20}),
    ("deploy", {"service": "api", "version": "2.4.2"}),
)
EXPECTED_ANCHORS: tuple[str, ...] = ("after_plan", "before_risky_step", "before_result")
# The deploy keeps its own gate (the requester decides everything here, so the plan's approval would
# approve it too): three resumes per run, as the figures have always measured and the LangGraph baseline does.
POLICY = PolicyConfig(anchors=AnchorsRule(merge_gate=False))
REQUESTER = "bench"
REVIEWER = REQUESTER  # no approvers configured: the requester decides (agent.authz)

BRAIN_LABELS: dict[BrainKind, str] = {
    "llm": "LLMBrain(OfflineModel()) — the product's brain and offline model",
    "fixed": "FixedPlanBrain — a minimal agent.ports.Brain that returns the fixed plan",
}


def registry() -> ToolRegistry:
    """The bench tools, collected by the product's own loader."""
    return load_tools([TOOL_MODULE])


def plan_matches(steps: list[ProposedStep]) -> bool:
    return [(s.tool, s.params) for s in steps] == [(tool, params) for tool, params in EXPECTED_PLAN]


class FixedPlanBrain:
    """Implements :class:`agent.ports.Brain` with the fixed 3-step plan and canned text."""

    local = True
    """Its text is written here, at once, at no cost, from what ran (as the offline model's): the engine may
    commit the last step's result without waiting for the disk, as it does with the product's default brain."""

    async def plan(
        self,
        task: str,
        tools: ToolRegistry,
        *,
        feedback: list[str],
        rejected: list[PlannedStep],
        completed: list[Step],
        max_steps: int,
        ask_below: float = 0.0,
        lessons: Sequence[Lesson] = (),
    ) -> list[ProposedStep]:
        if task != TASK:
            raise PlanError(f"FixedPlanBrain only plans the benchmark task, not {task!r}.")
        steps = []
        for name, params in EXPECTED_PLAN:
            spec = tools.get(name)
            steps.append(ProposedStep(tool=name, params=spec.validate(params), reason="fixed plan", risk=spec.risk))
        return steps

    async def revise_step(
        self, task: str, step: Step, tools: ToolRegistry, *, feedback: str, suggested_fix: str | None
    ) -> dict[str, Any]:
        raise ReviseError("FixedPlanBrain does not revise steps.")

    async def summarize(self, task: str, steps: list[Step], notes: list[str]) -> str:
        return "\n".join(f"{s.number}. {s.tool}: {s.result}" for s in steps)

    async def refine(self, task: str, output: str, feedback: str, steps: list[Step]) -> str:
        return output

    async def classify(self, text: str, context: ClassifyContext) -> Reading:
        return Reading(intent="approve")

    async def propose(self, instruction: str, task: str, steps: list[Step], tools: ToolRegistry) -> TakeoverReading:
        return TakeoverReading(kind="unclear")


def make_brain(kind: BrainKind) -> Brain:
    if kind == "fixed":
        return FixedPlanBrain()
    # Imported here so a fixed-brain process never loads the planner.
    from agent.brain import LLMBrain
    from agent.offline import OfflineModel

    return LLMBrain(OfflineModel())


async def choose_brain(tools: ToolRegistry) -> tuple[BrainKind, Brain, str]:
    """The product's brain if it plans the fixed workload, else the fixed-plan brain (and why)."""
    try:
        brain = make_brain("llm")
        steps = await brain.plan(TASK, tools, feedback=[], rejected=[], completed=[], max_steps=10)
    except Exception as exc:  # the planner is being changed by others; never let that stop the benchmark
        return "fixed", FixedPlanBrain(), f"LLMBrain(OfflineModel()) failed to plan ({type(exc).__name__}: {exc})"
    if plan_matches(steps):
        return "llm", brain, "its plan for the task is the fixed 3-step plan"
    got = ", ".join(f"{s.tool}({s.params})" for s in steps)
    return "fixed", FixedPlanBrain(), f"LLMBrain(OfflineModel()) planned something else: {got}"
