"""Reading quality on replies in context: each reply is typed at a review of a run whose plan it talks about.

    python -m bench.quality --context                # the set the offline reader is tuned on
    python -m bench.quality --context --holdout      # the set written first and never tuned on
    TANDEM_MODEL=openai/<model> TANDEM_LLM_API_BASE=http://127.0.0.1:<port>/v1 python -m bench.quality --context

Each line of ``bench/data/context_replies.jsonl`` (tuned on) and ``bench/data/context_holdout.jsonl``
(held out) carries its own run: the task, the plan (tools and parameters of the demo toolset), the anchor
and the step under review, the reply, and what it means: ``intent`` (``approve``, ``cancel``, ``replan``,
``retry_step``, ``refine_output``, ``question``, or ``unclear`` for a reply nobody could act on), the
``target`` step where one is meant, and the ``value`` a correction asks for (noted, not scored here: the
values are the parameter reader's business). Labels follow the anchor rules of :mod:`bench.quality`, and
a label that makes no sense at its anchor is scored as the reading the runtime applies in its place
(:func:`agent.readings.nearest`).

Each reply goes through ``LLMBrain.classify`` (the offline reader, and the model ``TANDEM_MODEL`` names
combined with it by :func:`agent.readings.combine`), as the runtime reads it. Printed: right (acted on
as labeled, or an unclear reply asked about), asked first (a clear reply the policy is not sure of),
wrong (acted on otherwise), and corrections or cancels read as approval, asked about or not.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from agent.brain import LLMBrain
from agent.llm import make_model
from agent.models import Reading, Step
from agent.policy import SafetyPolicy
from agent.ports import ChatModel, ClassifyContext
from agent.readings import ReadingKind, nearest
from agent.settings import CoreSettings, read_settings
from agent.tools import known_values, load_tools
from bench.common import DATA, CountingModel, load_labeled, spread

REPLIES = DATA / "context_replies.jsonl"
HOLDOUT = DATA / "context_holdout.jsonl"
"""Written before the offline reader learned questions, and never tuned on."""
INTENTS = ("approve", "cancel", "replan", "retry_step", "refine_output", "question", "unclear")
ANCHORS = ("after_plan", "before_risky_step", "after_risky_step", "step_failed", "before_result")
TOOLS = load_tools(["demo.tools"])


@dataclass(frozen=True)
class Reply:
    id: int
    task: str
    plan: list[dict[str, Any]]
    anchor: str
    lang: str
    text: str
    intent: str
    step: int | None = None
    target: int | None = None
    value: str | None = None
    clear: bool = True
    output: str | None = field(default=None)

    @property
    def meant(self) -> str:
        """The intent as the runtime applies it at this anchor."""
        if self.intent == "unclear":
            return self.intent
        return nearest(cast(ReadingKind, self.intent), self.anchor, self.step)


@dataclass(frozen=True)
class Read:
    reply: Reply
    reading: Reading
    asked: bool

    @property
    def verdict(self) -> str:
        """right, asked or wrong (an unclear reply is right when it is asked about)."""
        if self.reply.intent == "unclear":
            return "right" if self.asked and self.reading.intent != "question" else "wrong"
        if self.asked:
            return "asked"
        step_ok = self.reply.target is None or self.reading.target_step == self.reply.target
        return "right" if self.reading.intent == self.reply.meant and step_ok else "wrong"


def load_replies(path: Path = REPLIES) -> list[Reply]:
    return load_labeled(path, Reply, INTENTS, ANCHORS)


def context(reply: Reply) -> ClassifyContext:
    """The run as it stands where the reply was typed: which steps ran, which failed, the result so far."""
    at = reply.step
    steps = []
    for number, raw in enumerate(reply.plan, start=1):
        status, error, result = "pending", None, None
        ran = reply.anchor == "before_result" or (at is not None and number < at)
        if ran or (at == number and reply.anchor == "after_risky_step"):
            status, result = "done", f"{raw['tool']}: ok"
        elif at == number and reply.anchor == "step_failed":
            status, error = "failed", f"{raw['tool']} failed"
        spec = TOOLS.get(raw["tool"])
        steps.append(
            Step(
                number=number,
                tool=raw["tool"],
                params=raw["params"],
                risk=spec.risk,
                status=status,
                error=error,
                result=result,
            )
        )
    output = (reply.output or f"Done: {reply.task}") if reply.anchor == "before_result" else None
    known = known_values(TOOLS, [s.tool for s in steps])
    return ClassifyContext(task=reply.task, anchor=reply.anchor, steps=steps, step=at, output=output, known=known)


async def read_replies(
    replies: list[Reply], model: ChatModel, policy: SafetyPolicy
) -> tuple[list[Read], CountingModel]:
    counting = CountingModel(model)
    brain = LLMBrain(counting)
    reads = []
    for reply in replies:
        ctx = context(reply)
        reading = await brain.classify(reply.text, ctx)
        if reading.intent == "retry_step" and reading.target_step is None:  # as the runtime applies it
            reading = reading.model_copy(update={"target_step": ctx.step})
        asked = reading.intent != "question" and not policy.text_sure(reading)
        reads.append(Read(reply, reading, asked))
    return reads, counting


def _ratio(label: str, part: int, whole: int) -> str:
    share = f"{100 * part / whole:5.1f} %" if whole else "    - "
    return f"{label:<28} {part:>4}/{whole:<4} {share}"


def report(reads: list[Read], counting: CountingModel, name: str) -> list[str]:
    lines = [f"replies in context: {counting.name}, {name}, {len(reads)} replies"]
    for verdict in ("right", "asked", "wrong"):
        label = {"right": "right", "asked": "asked first", "wrong": "wrong"}[verdict]
        lines.append(_ratio(label, sum(r.verdict == verdict for r in reads), len(reads)))
    for title, key, keys in (("intent", "intent", INTENTS), ("anchor", "anchor", ANCHORS), ("language", "lang", None)):
        lines.append(f"by {title}:")
        names = keys or sorted({getattr(r.reply, key) for r in reads})
        for value in names:
            group = [r for r in reads if getattr(r.reply, key) == value]
            if group:
                lines.append(_ratio(f"  {value}", sum(r.verdict == "right" for r in group), len(group)))
    stops = [r for r in reads if r.reply.intent not in ("approve", "unclear", "question")]
    lines.append(
        _ratio("corrections/cancels as approval", sum(r.reading.intent == "approve" for r in stops), len(stops))
    )
    questions = [r for r in reads if r.reply.intent == "question"]
    as_change = [r for r in questions if r.reading.intent not in ("question",) and not r.asked]
    lines.append(_ratio("questions acted on as a change", len(as_change), len(questions)))
    lines.append(f"model calls per reply        {counting.model_calls / max(1, len(reads)):.2f}")
    lines.append(f"seconds per call             {counting.per_call:.3f}")
    lines.append("asked or wrong:")
    for r in reads:
        if r.verdict != "right":
            want = r.reply.meant + (f" {r.reply.target}" if r.reply.target else "")
            got = r.reading.intent + (f" {r.reading.target_step}" if r.reading.target_step else "")
            lines.append(
                f"  #{r.reply.id:<5} {r.verdict:<5} {r.reply.anchor:<18} want {want:<15} got {got:<15} {r.reply.text}"
            )
    return lines


async def run_context(
    limit: int | None = None, model_name: str | None = None, api_base: str | None = None, *, holdout: bool = False
) -> list[str]:
    """Read the (sliced) set with the named model (``TANDEM_MODEL``, ``TANDEM_LLM_API_BASE`` when not
    given; offline by default) and return the printed lines."""
    settings = read_settings(CoreSettings)
    name = model_name if model_name is not None else settings.model
    base = api_base if api_base is not None else settings.llm_api_base
    model = make_model(name, base, settings.llm_timeout)
    path = HOLDOUT if holdout else REPLIES
    reads, counting = await read_replies(spread(load_replies(path), limit), model, SafetyPolicy())
    return report(reads, counting, path.name)
