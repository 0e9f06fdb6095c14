"""Whether a replan keeps the task, on multi-part tasks corrected one message after another.

    python -m bench.quality --replans           # the offline planner
    TANDEM_MODEL=openai/<model> TANDEM_LLM_API_BASE=http://127.0.0.1:<port>/v1 python -m bench.quality --replans

Each case in ``bench/data/replans.jsonl`` is a task and the feedback a person gives on its plans, in
order. It is planned as a run plans it: the task first, then once per message with all feedback so far
and the last plan as the rejected one. Right = the final plan has the wanted tools in the wanted order,
each with the wanted values. Printed: cases right, model calls per plan (above 1: a plan went back for
repair, for example because it dropped a part of the task nobody took back), seconds per call.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.brain import LLMBrain
from agent.errors import LLMError
from agent.models import PlannedStep, ProposedStep
from agent.ports import ChatModel
from agent.tools import load_tools
from bench.common import DATA, CountingModel

CASES = DATA / "replans.jsonl"
TOOLS = load_tools(["demo.tools"])


@dataclass(frozen=True)
class Case:
    id: int
    task: str
    feedback: list[str]
    want: list[tuple[str, dict[str, Any]]]


def load_cases(path: Path = CASES) -> list[Case]:
    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            want = [(str(tool), dict(values)) for tool, values in raw.pop("want")]
            cases.append(Case(want=want, **raw))
        except (ValueError, TypeError, KeyError) as exc:
            raise SystemExit(f"{path.name} line {number} is not a replan case: {exc}") from None
    return cases


def kept(plan: list[ProposedStep], want: list[tuple[str, dict[str, Any]]]) -> bool:
    return len(plan) == len(want) and all(
        step.tool == tool and all(step.params.get(k) == v for k, v in values.items())
        for step, (tool, values) in zip(plan, want, strict=True)
    )


async def final_plan(brain: LLMBrain, case: Case) -> list[ProposedStep]:
    plan = await brain.plan(case.task, TOOLS, feedback=[], rejected=[], completed=[], max_steps=10)
    for given in range(1, len(case.feedback) + 1):
        rejected = [PlannedStep(tool=s.tool, params=s.params, reason=s.reason) for s in plan]
        plan = await brain.plan(
            case.task, TOOLS, feedback=case.feedback[:given], rejected=rejected, completed=[], max_steps=10
        )
    return plan


async def run_replans(model: ChatModel, cases: list[Case] | None = None) -> list[str]:
    """Plan every case with ``model`` and return the printed lines."""
    counting = CountingModel(model)
    brain = LLMBrain(counting)
    cases = load_cases() if cases is None else cases
    right, plans, wrong = 0, 0, []
    for case in cases:
        plans += 1 + len(case.feedback)
        try:
            plan = await final_plan(brain, case)
        except LLMError as exc:
            wrong.append(f"  #{case.id:<3} no plan: {exc}")
            continue
        if kept(plan, case.want):
            right += 1
        else:
            got = ", ".join(f"{s.tool} {json.dumps(s.params, ensure_ascii=False)}" for s in plan)
            wrong.append(f"  #{case.id:<3} {case.task} / {' / '.join(case.feedback)} -> {got}")
    offline, calls, per_call = counting.offline, counting.model_calls, counting.per_call
    return [
        f"replans: {counting.name}, {len(cases)} multi-part tasks, {plans} plans",
        f"task kept after replans  {right:>4}/{len(cases):<4} {100 * right / max(1, len(cases)):5.1f} %",
        f"model calls per plan     {calls / max(1, plans):.2f}" + ("  (offline planner)" if offline else ""),
        f"seconds per call         {per_call:.3f}",
        "not kept:",
        *wrong,
    ]
