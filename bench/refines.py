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
from agent.models import Step
from agent.offline import render_summary
from agent.ports import ChatModel
from agent.prompts import step_view
from agent.tools import load_tools
from bench.quality import DATA, CountingModel

CASES = DATA / "refines.jsonl"
TOOLS = load_tools(["demo.tools"])
SHAPES = (None, "table", "bullets")

_NUMBER = re.compile(r"(?<![\w.:])v?\d+(?:[.:]\d+)*(?![\w:]|\.\d)")
"""A number as a fact: ``1204``, ``4.7``, ``v2.14``, ``14:02:11``; not the digits of ``p99`` or ``7f9``."""
_TABLE = re.compile(r"^(?=[^\n]*\|)[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*$", re.MULTILINE)
"""The line under a pipe table's header: ``| --- | --- |``."""
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+\S", re.MULTILINE)
_LEFT_OUT = re.compile(
    r"left out|leav(?:e|ing) out|omit|not shown|not included|not listed|excluded|skipped|dropped|"
    r"for the full|full (?:result|output|log)|only the errors|"
    r"省略|略去|未列出|未显示|未包含|没有列出|不含|只列出|仅列出|完整",
    re.IGNORECASE,
)


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
        text = "\n".join(f"{s.result or ''}\n{s.error or ''}" for s in self.steps)
        return list(dict.fromkeys([*_NUMBER.findall(text), *self.errors]))


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


def _has(text: str, fact: str) -> bool:
    if _NUMBER.fullmatch(fact):
        return re.search(rf"(?<![\w.:]){re.escape(fact)}(?![\w:]|\.\d)", text) is not None
    return fact.lower() in text.lower()


def problems(case: Case, refined: str) -> list[str]:
    """Why a reworked result breaks the rule; empty when it keeps it."""
    found = []
    missing = [f for f in case.facts if not _has(refined, f)]
    if missing and not (case.less and _LEFT_OUT.search(refined)):
        why = "asked for less but says nothing was left out" if case.less else "dropped"
        found.append(f"{why}: {', '.join(missing)}")
    if case.shape == "table" and not _TABLE.search(refined):
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
    offline = model.name == "offline"
    per_call = sum(counting.seconds) / len(counting.seconds) if counting.seconds else 0.0
    calls = 0 if offline else counting.calls
    return [
        f"refines: {counting.name}, {len(cases)} results reworked",
        f"facts and shape kept     {right:>4}/{len(cases):<4} {100 * right / max(1, len(cases)):5.1f} %",
        f"model calls per case     {calls / max(1, len(cases)):.2f}" + ("  (offline rework)" if offline else ""),
        f"seconds per call         {per_call:.3f}",
        "cases:",
        *rows,
    ]
