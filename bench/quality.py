"""How well the reader reads what people reply at a review, on a labeled bilingual set.

    python -m bench.quality                          # the offline reader, the whole set
    python -m bench.quality --limit 40               # a slice, spread over the set
    python -m bench.quality --holdout                # 40 replies the offline reader was never tuned on
    python -m bench.quality --ask-always             # the model reads every reply (sureness still from evidence)
    python -m bench.quality --replans                # whether a replan keeps the task (bench/replans.py)
    python -m bench.quality --refines                # whether a reworked result keeps its facts (bench/refines.py)
    python -m bench.quality --context [--holdout]    # replies typed at a review of the run they talk about
    python -m bench.quality --replans --limit 4      # (--limit slices the replan and refine cases too)
    TANDEM_MODEL=openai/<model> TANDEM_LLM_API_BASE=http://127.0.0.1:<port>/v1 python -m bench.quality
    (TANDEM_LLM_TIMEOUT=<seconds> gives a slow local model longer than the default 60 s a call)

The set is ``bench/data/reader_corrections.jsonl``: one reply per line, at an anchor (``after_plan``,
``before_risky_step``, ``after_risky_step``, ``step_failed``, ``before_result``) of one of the plans in
``bench/data/reader_plans.json`` (the demo toolset's tools and services). Each line says what the reply
means: ``intent`` (``approve``, ``cancel``, ``replan``, ``retry_step``, ``refine_output``, or
``unclear`` for a reply nobody could act on), the ``target`` step of a ``retry_step``, and the ``value``
a correction asks for. Labels follow one rule per anchor: at a gate nothing has run yet, so a changed
value of the step in question is ``retry_step`` on it and a changed order, approach or service of the
whole plan is ``replan``; presentation is ``refine_output``; going on despite a failure is ``approve``.

Each reply goes through ``LLMBrain.classify`` with whatever ``TANDEM_MODEL`` names (offline by
default), and is applied as the runtime applies it: a ``retry_step`` without a step targets the step
under review, and a reading the policy is not sure of is asked about first instead of applied.

Printed: accuracy per intent and per anchor (right = intent and step as labeled), approvals misread,
corrections read as approval, asked-first on clear corrections, value named, model calls per reply
(and, with a model, the replies read without it: the calls saved) and seconds per model call.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from agent.brain import LLMBrain
from agent.llm import make_model
from agent.models import Reading, Risk, Step
from agent.policy import SafetyPolicy
from agent.ports import ChatModel, ClassifyContext
from agent.readings import ReadingKind, nearest
from agent.settings import CoreSettings, read_settings
from agent.tools import known_values, load_tools
from bench import refines, replans
from bench.common import DATA, CountingModel, load_labeled, spread
from bench.context import run_context

ITEMS = DATA / "reader_corrections.jsonl"
HOLDOUT = DATA / "reader_holdout.jsonl"
"""Replies written after the offline reader was tuned on ITEMS, and never tuned on: its honest figure."""
PLANS = DATA / "reader_plans.json"
INTENTS = ("approve", "cancel", "replan", "retry_step", "refine_output", "unclear")
ANCHORS = ("after_plan", "before_risky_step", "after_risky_step", "step_failed", "before_result")
TOOLS = load_tools(["demo.tools"])
STEP_ANCHORS = ("before_risky_step", "after_risky_step", "step_failed")


@dataclass(frozen=True)
class Item:
    id: int
    plan: str
    anchor: str
    lang: str
    text: str
    intent: str
    step: int | None = None
    target: int | None = None
    value: str | None = None
    clear: bool = True


@dataclass
class Outcome:
    item: Item
    reading: Reading
    asked: bool
    calls: int

    @property
    def intent(self) -> str:
        return self.reading.intent

    @property
    def right(self) -> bool:
        """As labeled: an unclear reply is right when it is asked about; any other needs intent and step."""
        if self.item.intent == "unclear":
            return self.asked
        if self.intent != nearest(
            cast(ReadingKind, self.item.intent), self.item.anchor, self.item.step
        ):  # as the runtime applies it
            return False
        return self.item.target is None or self.reading.target_step == self.item.target


def load_items(path: Path = ITEMS) -> list[Item]:
    return load_labeled(path, Item, INTENTS, ANCHORS)


def load_plans(path: Path = PLANS) -> dict[str, dict[str, Any]]:
    plans: dict[str, dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return plans


def context(item: Item, plans: dict[str, dict[str, Any]]) -> ClassifyContext:
    """The run as it stands at the item's anchor: which steps ran, which failed, the result so far."""
    plan = plans[item.plan]
    at = item.step or (1 if item.anchor in STEP_ANCHORS else None)
    steps = []
    for number, raw in enumerate(plan["steps"], start=1):
        status = "pending"
        error = None
        if item.anchor == "before_result" or (at is not None and number < at):
            status = "done"
        elif at == number and item.anchor == "after_risky_step":
            status = "done"
        elif at == number and item.anchor == "step_failed":
            status, error = "failed", plan["error"]
        steps.append(
            Step(
                number=number,
                tool=raw["tool"],
                params=raw["params"],
                risk=Risk.parse(raw["risk"]),
                status=status,
                error=error,
                result="ok" if status == "done" else None,
            )
        )
    output = plan["output"] if item.anchor == "before_result" else None
    known = known_values(TOOLS, [s.tool for s in steps])
    return ClassifyContext(task=plan["task"], anchor=item.anchor, steps=steps, step=at, output=output, known=known)


async def read_all(
    items: list[Item], model: ChatModel, policy: SafetyPolicy, *, read_first: bool = True
) -> tuple[list[Outcome], CountingModel]:
    counting = CountingModel(model)
    brain = LLMBrain(counting, read_first=read_first)
    plans = load_plans()
    outcomes = []
    for item in items:
        ctx = context(item, plans)
        before = counting.calls
        reading = await brain.classify(item.text, ctx)
        if reading.intent == "retry_step" and reading.target_step is None:  # as the runtime applies it
            reading = reading.model_copy(update={"target_step": ctx.step})
        asked = not policy.text_sure(reading)
        outcomes.append(Outcome(item, reading, asked, counting.calls - before))
    return outcomes, counting


def _ratio(label: str, part: int, whole: int) -> str:
    share = f"{100 * part / whole:5.1f} %" if whole else "    - "
    return f"{label:<24} {part:>4}/{whole:<4} {share}"


def report(outcomes: list[Outcome], counting: CountingModel, *, offline: bool) -> list[str]:
    """The figures, as printed lines."""
    lines = [f"reader: {counting.name}, {len(outcomes)} replies"]
    right = sum(o.right for o in outcomes)
    lines.append(_ratio("right overall", right, len(outcomes)))
    for title, key, keys in (("intent", "intent", INTENTS), ("anchor", "anchor", ANCHORS)):
        lines.append(f"by {title}:")
        groups: dict[str, list[Outcome]] = defaultdict(list)
        for o in outcomes:
            groups[getattr(o.item, key)].append(o)
        for name in keys:
            group = groups.get(name, [])
            if group:
                ok = sum(o.right for o in group)
                lines.append(_ratio(f"  {name}", ok, len(group)))
    approvals = [o for o in outcomes if o.item.intent == "approve"]
    misread = [o for o in approvals if o.intent != "approve" or o.asked]
    corrections = [o for o in outcomes if o.item.intent not in ("approve", "unclear")]
    as_approval = [o for o in corrections if o.intent == "approve"]
    clear = [o for o in corrections if o.item.clear]
    asked = [o for o in clear if o.asked]
    valued = [o for o in corrections if o.item.value]
    named = [o for o in valued if o.item.value and o.item.value.lower() in (o.reading.suggested_fix or "").lower()]
    lines.append(_ratio("approvals misread", len(misread), len(approvals)))
    lines.append(_ratio("corrections as approval", len(as_approval), len(corrections)))
    lines.append(_ratio("asked first (clear)", len(asked), len(clear)))
    lines.append(_ratio("value named in the fix", len(named), len(valued)))
    calls, per_call = counting.model_calls, counting.per_call
    lines.append(
        f"model calls per reply    {calls / max(1, len(outcomes)):.2f}" + ("  (offline reader)" if offline else "")
    )
    if not offline:  # the replies the offline reader was certain of: read without asking the model
        lines.append(_ratio("read without the model", sum(o.calls == 0 for o in outcomes), len(outcomes)))
    lines.append(f"seconds per call         {per_call:.3f}")
    return lines


def wrong_lines(outcomes: list[Outcome]) -> list[str]:
    out = []
    for o in outcomes:
        if not o.right or (o.asked and o.item.clear and o.item.intent != "unclear"):
            want = o.item.intent + (f" {o.item.target}" if o.item.target else "")
            got = o.intent + (f" {o.reading.target_step}" if o.reading.target_step else "")
            flag = " (asked)" if o.asked else ""
            out.append(f"  #{o.item.id:<4} {o.item.anchor:<18} want {want:<14} got {got:<14}{flag} {o.item.text}")
    return out


async def run(
    limit: int | None = None,
    model_name: str | None = None,
    api_base: str | None = None,
    path: Path = ITEMS,
    *,
    read_first: bool = True,
) -> list[str]:
    """Read the (sliced) set with the named model and return the printed lines."""
    name = model_name if model_name is not None else os.environ.get("TANDEM_MODEL", "offline")
    api_base = api_base if api_base is not None else os.environ.get("TANDEM_LLM_API_BASE")
    model = make_model(name, api_base, read_settings(CoreSettings).llm_timeout)
    items = spread(load_items(path), limit)
    outcomes, counting = await read_all(items, model, SafetyPolicy(), read_first=read_first)
    return report(outcomes, counting, offline=model.name == "offline") + ["misread or asked:", *wrong_lines(outcomes)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--limit", type=int, default=None, help="read only this many replies (or cases), spread over the set"
    )
    parser.add_argument("--holdout", action="store_true", help=f"read {HOLDOUT.name} instead of {ITEMS.name}")
    parser.add_argument(
        "--ask-always",
        action="store_true",
        help="ask the model about every reply, even those the offline reader is sure of",
    )
    parser.add_argument("--replans", action="store_true", help="plan the multi-part tasks of bench/data/replans.jsonl")
    parser.add_argument("--refines", action="store_true", help="rework the results of bench/data/refines.jsonl")
    parser.add_argument(
        "--context", action="store_true", help="read replies in the context of their run (bench/context.py)"
    )
    args = parser.parse_args(argv)
    if args.context:
        for line in asyncio.run(run_context(args.limit, holdout=args.holdout)):
            print(line)
        return
    if args.replans or args.refines:
        settings = read_settings(CoreSettings)
        model = make_model(settings.model, settings.llm_api_base, settings.llm_timeout)
        if args.replans:
            job = replans.run_replans(model, spread(replans.load_cases(), args.limit))
        else:
            job = refines.run_refines(model, spread(refines.load_cases(), args.limit))
        for line in asyncio.run(job):
            print(line)
        return
    path = HOLDOUT if args.holdout else ITEMS
    for line in asyncio.run(run(args.limit, path=path, read_first=not args.ask_always)):
        print(line)


if __name__ == "__main__":
    main()
