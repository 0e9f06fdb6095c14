"""Which of the lessons given to the planner shaped its plan: only those are credited and shown.

A lesson shaped a plan when the plan does what it teaches and the same request planned without
lessons would not: that plan comes from the offline planner, which is cheap and deterministic
(with the offline model it is the very plan without lessons; with another model, the plain
reading of the task and its feedback).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from agent import prompts
from agent.lessons import PlanLike, reflected, shaped
from agent.models import Lesson, PlannedStep, Step
from agent.tools import ToolRegistry

log = logging.getLogger("tandem.lessons")


async def credited(
    lessons: Sequence[Lesson],
    plan: Sequence[PlannedStep],
    task: str,
    tools: ToolRegistry,
    *,
    feedback: list[str],
    rejected: list[PlannedStep],
    completed: list[Step],
    max_steps: int,
) -> list[Lesson]:
    steps: PlanLike = [(p.tool, p.params) for p in plan]
    maybe = [x for x in lessons if reflected(x, steps)]
    if not maybe:
        return []
    context = prompts.plan_context(
        task, tools, feedback=feedback, rejected=rejected, completed=completed, max_steps=max_steps
    )
    return shaped(maybe, steps, await asyncio.to_thread(_without, context))


def _without(context: dict[str, Any]) -> PlanLike | None:
    from agent.offline.planner import plan_answer  # only when lessons are weighed: a resume never loads the planner

    try:
        answer = plan_answer(context)
    except Exception as exc:  # a heuristic bug costs the comparison (the plan's reflection still counts)
        log.warning("could not plan without lessons to compare: %s", exc)
        return None
    return [(str(s.get("tool")), dict(s.get("params") or {})) for s in answer.get("steps", [])]
