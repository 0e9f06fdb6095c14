"""Whether refine is presentation only: a reworked result keeps every number and error it was given.

    python -m bench.quality --refines           # the offline rework
    TANDEM_MODEL=openai/<model> TANDEM_LLM_API_BASE=http://127.0.0.1:<port>/v1 python -m bench.quality --refines

Each case in ``bench/data/refines.jsonl`` is a finished run (its task and steps: results with numbers, a
failed step's error, several steps) and what a person asked of its result ("show it as a table",
"用表格展示", "make it shorter", "just the errors", ...). The result shown is the one the offline summary
writes from those steps; the request goes through ``LLMBrain.refine`` as a run applies ``refine_output``
at the result (task, result, request, the steps that ran), with whatever ``TANDEM_MODEL`` names.

Right = every number in the steps' results and errors, and each error the case names, is in the reworked
text; unless the request asked for less (``less``), and then a missing fact is allowed only when the
answer says what it left out. A table request must give a (pipe) table, a list request a list.
Printed: each case right or not (and why), cases right, model calls per case, seconds per call.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.brain import LLMBrain
from agent.facts import LEFT_OUT, facts_of, has, has_table
from agent.models import Step
from agent.offline import render_summary
from agent.ports import ChatModel
from agent.prompts import step_view
from agent.tools import load_tools
from bench.common import DATA, CountingModel

CASES = DATA / "refines.jsonl"
TOOLS = load_tools(["demo.tools"])
SHAPES = (None, "table", "bullets")

_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+\S", re.MULTILINE)


@dataclass(frozen=True)
class Case:
    id: int
    lang: str
    task: str
    steps: list[Step]
    request: str
    less: bool
    shape: str | None
    errors: list[str]

    @property
    def facts(self) -> list[str]:
        """The numbers of the steps' results and errors, and the errors the case names, each once."""
        return facts_of(self.steps, self.errors)


def load_cases(path: Path = CASES) -> list[Case]:
    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw: dict[str, Any] = json.loads(line)
            steps = [
                Step(number=n, risk=TOOLS.get(s["tool"]).risk, **s) for n, s in enumerate(raw.pop("steps"), start=1)
            ]
            case = Case(steps=steps, **raw)
        except (ValueError, TypeError, KeyError) as exc:
            raise SystemExit(f"{path.name} line {number} is not a refine case: {exc}") from None
        if case.shape not in SHAPES:
            raise SystemExit(f"{path.name} line {number}: shape must be one of {SHAPES}, not {case.shape!r}")
        cases.append(case)
    return cases


def shown(case: Case) -> str:
    """The result as a run shows it before anyone asks for another presentation."""
    return render_summary(case.task, [step_view(s) for s in case.steps], [])


def problems(case: Case, refined: str) -> list[str]:
    """Why a reworked result breaks the rule; empty when it keeps it."""
    found = []
    missing = [f for f in case.facts if not has(refined, f)]
    if missing and not (case.less and LEFT_OUT.search(refined)):
        why = "asked for less but says nothing was left out" if case.less else "dropped"
        found.append(f"{why}: {', '.join(missing)}")
    if case.shape == "table" and not has_table(refined):
        found.append("no table")
    if case.shape == "bullets" and len(_BULLET.findall(refined)) < 2:
        found.append("no list")
    return found


async def run_refines(model: ChatModel, cases: list[Case] | None = None) -> list[str]:
    """Rework every case's result with ``model`` and return the printed lines."""
    counting = CountingModel(model)
    brain = LLMBrain(counting)
    cases = load_cases() if cases is None else cases
    right, rows = 0, []
    for case in cases:
        refined = await brain.refine(case.task, shown(case), case.request, case.steps)
        wrong = problems(case, refined)
        right += not wrong
        fallback = " (reworked without the model)" if "_(Reworked without the model" in refined else ""
        verdict = "ok  " if not wrong else "FAIL"
        rows.append(
            f"  {verdict} #{case.id:<3} {case.lang} {case.request}{fallback}"
            + (f": {'; '.join(wrong)}" if wrong else "")
        )
    offline, calls, per_call = counting.offline, counting.model_calls, counting.per_call
    return [
        f"refines: {counting.name}, {len(cases)} results reworked",
        f"facts and shape kept     {right:>4}/{len(cases):<4} {100 * right / max(1, len(cases)):5.1f} %",
        f"model calls per case     {calls / max(1, len(cases)):.2f}" + ("  (offline rework)" if offline else ""),
        f"seconds per call         {per_call:.3f}",
        "cases:",
        *rows,
    ]
