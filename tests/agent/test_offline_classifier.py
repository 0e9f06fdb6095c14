"""The offline reader on the defects people met: "ok, but …", value fixes at a gate, presentation requests."""

from __future__ import annotations

import pytest

from agent.brain import LLMBrain
from agent.models import Risk, Step
from agent.offline import CERTAIN, OfflineModel
from agent.policy import SafetyPolicy
from agent.ports import ClassifyContext
from agent.tools import known_values, load_tools

TOOLS = load_tools(["demo.tools"])
PLAN = [
    Step(number=1, tool="scale_service", params={"service": "payments", "replicas": 3}, risk=Risk.WRITE),
    Step(number=2, tool="read_logs", params={"service": "payments", "level": "error", "limit": 20}),
]
KNOWN = known_values(TOOLS, [s.tool for s in PLAN])
BRAIN = LLMBrain(OfflineModel())
POLICY = SafetyPolicy()


def _context(anchor: str) -> ClassifyContext:
    step = 1 if anchor in ("before_risky_step", "after_risky_step", "step_failed") else None
    output = "*payments*\nreplicas 2 -> 3\n4 errors, p99 812 ms" if anchor == "before_result" else None
    return ClassifyContext(task="scale payments to 3 replicas, then read the error logs", anchor=anchor,
                           steps=PLAN, step=step, output=output, known=KNOWN)  # fmt: skip


@pytest.mark.parametrize(
    ("text", "anchor", "intent", "target", "fix"),
    [
        ("ok, but use 5 replicas", "after_plan", "retry_step", 1, "5"),
        ("可以，但是副本数应该是6", "after_plan", "retry_step", 1, "6"),
        ("replicas should be 5, not 3", "before_risky_step", "retry_step", 1, "5"),
        ("服务写错了，应该用 checkout", "before_risky_step", "retry_step", 1, "checkout"),
        ("read 50 log lines, not 20", "after_plan", "retry_step", 2, "50"),
        ("no, do NOT scale this", "before_risky_step", "replan", None, None),
        ("先看日志再扩容", "after_plan", "replan", None, None),
        ("not payments, checkout", "after_plan", "replan", None, "checkout"),
        ("show it as a table", "before_result", "refine_output", None, None),
        ("用表格展示", "before_result", "refine_output", None, None),
        ("sort by p99", "before_result", "refine_output", None, None),
        ("按 error rate 从高到低排", "before_result", "refine_output", None, None),
        ("make it shorter", "before_result", "refine_output", None, None),
        ("再试一次", "step_failed", "retry_step", 1, None),
        ("ignore it and continue", "step_failed", "approve", None, None),
        ("可以，执行吧", "after_plan", "approve", None, None),
        ("yes, scale it and then check the logs", "after_plan", "approve", None, None),
    ],
)
async def test_offline_reader_clear_reply_is_read_sure_and_right(
    text: str, anchor: str, intent: str, target: int | None, fix: str | None
) -> None:
    reading = await BRAIN.classify(text, _context(anchor))

    assert (reading.intent, reading.target_step) == (intent, target), reading.reason
    assert fix is None or reading.suggested_fix == fix
    assert POLICY.text_sure(reading), f"{text!r} would be asked about first ({reading.confidence})"


@pytest.mark.parametrize(
    "text", ["ok, but use 5 replicas", "looks good but make it 4", "lgtm, but as a table", "好的，不过副本数改成8"]
)
@pytest.mark.parametrize("anchor", ["after_plan", "before_risky_step", "before_result"])
async def test_offline_reader_approval_with_a_change_is_not_approval(text: str, anchor: str) -> None:
    reading = await BRAIN.classify(text, _context(anchor))

    assert reading.intent != "approve", reading.reason


@pytest.mark.parametrize("text", ["hmm", "wait what", "嗯？", "hmm ok?", "?"])
async def test_offline_reader_unclear_reply_is_asked_first(text: str) -> None:
    reading = await BRAIN.classify(text, _context("before_risky_step"))

    assert not POLICY.text_sure(reading) and reading.confidence < CERTAIN


@pytest.mark.parametrize(
    ("text", "anchor", "target"),
    [
        ("why scale it?", "before_risky_step", 1),
        ("为什么要扩容？", "before_risky_step", 1),
        ("what will this change?", "after_plan", None),
        ("what did the logs say?", "before_result", 2),
        ("日志里有什么？", "before_result", 2),
        ("why 3 replicas", "after_plan", 1),
        ("wait, is step 2 reading errors only?", "after_plan", 2),
        ("why checkout and not payments?", "before_risky_step", 1),
    ],
)
async def test_offline_reader_question_is_read_as_one_about_its_step(
    text: str, anchor: str, target: int | None
) -> None:
    reading = await BRAIN.classify(text, _context(anchor))

    assert (reading.intent, reading.target_step) == ("question", target)


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("can you use 5 replicas?", "retry_step"),
        ("why not read the logs first?", "replan"),
        ("能不能先看日志？", "replan"),
        ("use 5 replicas?", "retry_step"),
        ("wait what", "retry_step"),
    ],
)
async def test_offline_reader_request_phrased_as_a_question_is_no_question(text: str, intent: str) -> None:
    reading = await BRAIN.classify(text, _context("before_risky_step"))

    assert reading.intent == intent


@pytest.mark.parametrize(
    ("anchor", "intent", "target"),
    [
        ("after_plan", "replan", None),  # no output yet: a presentation wish changes the plan
        ("before_risky_step", "retry_step", 1),  # or the step under review
        ("recovery", "retry_step", 1),
        ("after_risky_step", "refine_output", None),  # kept for the result
        ("before_result", "refine_output", None),
    ],
)
async def test_offline_reader_never_reads_what_makes_no_sense_at_the_anchor(
    anchor: str, intent: str, target: int | None
) -> None:
    context = _context(anchor).model_copy(update={"step": 1 if anchor in ("recovery", "before_risky_step") else None})
    context = context.model_copy(update={"step": 1}) if anchor == "after_risky_step" else context

    reading = await BRAIN.classify("show it as a table", context)

    assert (reading.intent, reading.target_step) == (intent, target)
