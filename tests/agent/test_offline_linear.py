"""No message can stall the bot: the offline model reads any text in linear time, off the event loop (a
result it writes from what ran, at once: see ``agent.offline.model._AT_ONCE``), and what a person wrote
reaches any model capped to ``READ_LIMIT`` characters (stored whole)."""

from __future__ import annotations

import asyncio
import gc
import json
import random
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

import pytest

import agent.not_done
import agent.offline.classifier
from agent.brain import LLMBrain
from agent.models import Risk, RunState, Step
from agent.not_done import checked
from agent.offline import OfflineModel
from agent.offline.classifier import classify_text
from agent.offline.vocabulary import JSON
from agent.ports import ClassifyContext, LLMRequest, Purpose
from agent.prompts import (
    READ_LIMIT,
    classify_request,
    plan_context,
    plan_request,
    propose_request,
    refine_request,
    revise_request,
)
from agent.runtime import Runtime
from agent.tools import ToolRegistry, load_tools, tool
from storage.facade import AsyncStore

# A regression guard on how reading grows, not a speed figure (those are in bench/reader.py): the same
# hostile text, GROWTH times longer, must cost about GROWTH times the CPU time, never about GROWTH².
# CPU time of this process is what the reading costs wherever it runs, however busy the machine is.
GROWTH = 8
SIZE = 4_000  # characters of the shorter text: large enough that reading it outweighs answering at all
MAX_RATIO = 16.0  # linear reading costs about 8 times more, quadratic reading about 64 times
SHORT_RUNS = 2  # the shorter text is read this many times and the cheapest run counts
LONG_RUNS = 3  # the longer one is read again, up to this many times in all, only while it looks quadratic

Service = Literal["payments", "checkout"]


@tool(risk=Risk.WRITE)
def hold_window(service: Service, window: str, minutes: int, dry_run: bool = False) -> str:
    """Hold deploys for a service during a maintenance window."""
    return f"{service} held for {window}"


TOOLS = load_tools(["demo.tools"])
TOOLS.add_function(hold_window)
DESCRIBED = TOOLS.describe()
MODEL = OfflineModel()


def mixed(size: int, seed: int = 7) -> str:
    """Punctuation, quotation marks, CJK, letters, digits and whitespace, shuffled."""
    alphabet = list(" \n\t\r,.;:!?-_/\\\"'“”「」()[]{}#@*|~，。、；：！？（）【】")
    alphabet += list("重启部署回滚日志错误检查服务不是而是先然后再副本频道第步用改成")
    alphabet += list("abcxyz0129")
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(size))


def repeated(unit: str, size: int) -> str:
    """``unit`` over and over, about ``size`` characters in all."""
    return unit * max(1, size // len(unit))


HUGE: dict[str, Callable[[int], str]] = {
    "newlines": lambda n: "\n" * n,
    "a correction padded with newlines": lambda n: "not payments, checkout" + "\n" * n + "use 3 replicas",
    "mixed characters": mixed,
    # one for each pattern or loop that was quadratic
    "spaces before no separator (clause splits, instead-of)": lambda n: "restart" + " " * n + "payments",
    "unclosed quotation marks": lambda n: repeated("send “x", n),
    "unclosed corner brackets": lambda n: repeated("send 「x", n),
    "a step word and spaces (step references)": lambda n: "scale step" + " " * n + "x",
    "a parameter name and spaces (parameter values)": lambda n: "hold payments window" + " " * n + "!",
    "a long hyphenated word (channel names)": lambda n: "notify " + repeated("a-", n) + " x channel",
    "a long word and no channel named (channel names)": lambda n: "notify " + "x" * n,
    "many clauses that say first": lambda n: repeated("first check payments; ", n),
    "many steps without their service": lambda n: repeated("restart, ", n) + "payments",
    "many equal steps": lambda n: repeated("restart payments, ", n),
}

STEPS = [
    {"number": 1, "tool": "scale_service", "params": {"service": "payments", "replicas": 2}, "status": "pending"},
    {"number": 2, "tool": "send_message", "params": {"channel": "#ops", "text": "done"}, "status": "pending"},
]


def contexts(text: str) -> list[tuple[Purpose, dict[str, Any]]]:
    """Every way the offline model reads a person's text: classify, plan (task and feedback), revise,
    propose, refine, and the result written with a task, steps' results and people's notes of any size."""
    scale = next(d for d in DESCRIBED if d["name"] == "scale_service")
    task = "scale payments"
    return [
        ("classify", {"text": text, "task": task, "anchor": "before_risky_step", "step": 1, "steps": STEPS}),
        ("classify", {"text": text, "task": "scale payments", "anchor": "before_result", "steps": STEPS}),
        ("plan", {"task": text, "tools": DESCRIBED, "feedback": [], "max_steps": 10}),
        ("plan", {"task": "scale payments to 2 replicas", "tools": DESCRIBED, "feedback": [text], "max_steps": 10}),
        ("revise", {"task": task, "step": STEPS[0], "tool": scale, "feedback": text, "suggested_fix": text}),
        ("propose", {"instruction": text, "task": "scale payments", "steps": STEPS, "tools": DESCRIBED}),
        ("refine", {"task": "scale payments", "output": f"*Done*\n{text}", "feedback": text, "steps": STEPS}),
        (
            "summarize",
            {"task": text, "steps": [{**s, "status": "done", "result": text} for s in STEPS], "notes": [text]},
        ),
    ]


async def cpu_seconds(read: Callable[[str], Awaitable[object]], text: str) -> float:
    """CPU time of this process, in every thread, while ``read`` reads ``text``; no garbage collection
    of what earlier tests left lands in it."""
    gc.disable()
    try:
        started = time.process_time()
        await read(text)
        return time.process_time() - started
    finally:
        gc.enable()


async def assert_reads_linearly(
    read: Callable[[str], Awaitable[object]], build: Callable[[int], str], size: int
) -> None:
    """Fails when reading ``build(GROWTH * size)`` costs MAX_RATIO times reading ``build(size)`` or more."""
    short, long = build(size), build(GROWTH * size)
    short_s = min([await cpu_seconds(read, short) for _ in range(SHORT_RUNS)])
    long_s = float("inf")
    for _ in range(LONG_RUNS):
        long_s = min(long_s, await cpu_seconds(read, long))
        if long_s < MAX_RATIO * short_s:
            return
    raise AssertionError(
        f"{GROWTH} times the text took {long_s / max(short_s, 1e-9):.1f} times the CPU time "
        f"({short_s * 1000:.1f} ms for {len(short):,} characters, {long_s * 1000:.1f} ms for {len(long):,}): "
        "reading must be linear"
    )


CASES = [
    pytest.param(name, i, id=f"{name}-{purpose}-{i}") for name in HUGE for i, (purpose, _) in enumerate(contexts(""))
]


@pytest.mark.parametrize(("name", "i"), CASES)
async def test_offline_model_huge_text_reading_grows_linearly(name: str, i: int) -> None:
    async def read(text: str) -> None:
        purpose, context = contexts(text)[i]
        answer = await MODEL.complete(LLMRequest(purpose=purpose, messages=[], context=context))
        assert isinstance(json.loads(answer), dict)

    await assert_reads_linearly(read, HUGE[name], SIZE)


async def test_linear_reading_check_quadratic_reading_caught() -> None:
    def count_lines_before_each(text: str) -> int:  # reads everything before each character again
        return sum(text.count("\n", 0, end) for end in range(len(text)))

    async def read(text: str) -> None:
        await asyncio.to_thread(count_lines_before_each, text)

    with pytest.raises(AssertionError, match="reading must be linear"):
        await assert_reads_linearly(read, HUGE["newlines"], 3_000)


async def test_offline_model_classifying_huge_text_leaves_loop_serving(monkeypatch: pytest.MonkeyPatch) -> None:
    loop_thread = threading.get_ident()
    ticks = 0  # turns of the event loop so far
    seen: list[tuple[int, int, int]] = []  # the reading's thread, and the ticks when it began and ended

    def recording(text: str, ctx: JSON) -> JSON:
        began = ticks
        reading = classify_text(text, ctx)
        seen.append((threading.get_ident(), began, ticks))
        return reading

    monkeypatch.setattr(agent.offline.classifier, "classify_text", recording)  # the model looks it up when asked
    text = mixed(150_000, seed=11)
    context = {"text": text, "task": "scale payments", "anchor": "after_plan", "steps": STEPS}
    reading = asyncio.create_task(MODEL.complete(LLMRequest(purpose="classify", messages=[], context=context)))
    while not reading.done():  # the positive signal is the classification itself
        await asyncio.sleep(0)
        ticks += 1
    assert json.loads(await reading)["intent"] in ("approve", "cancel", "replan", "retry_step", "refine_output")
    [(reader, began, ended)] = seen
    assert reader != loop_thread, "the model read on the event loop's thread"
    # read on the loop, the loop could not turn at all until the reading was over
    assert ended - began >= 3, f"the loop turned {ended - began} times while the model read: the reading blocked it"


# --- what a model reads is capped --------------------------------------------------------------

LONG = "use 3 replicas " + "x" * (3 * READ_LIMIT)
STEP = Step(number=1, tool="scale_service", params={"service": "payments", "replicas": 2}, risk=Risk.WRITE)


def _read_texts(request: LLMRequest) -> list[str]:
    """The person's words in a request's context, whichever purpose it is."""
    ctx = request.context
    feedback = ctx.get("feedback")
    texts = [ctx.get("text"), ctx.get("instruction"), ctx.get("suggested_fix")]
    texts += feedback if isinstance(feedback, list) else [feedback]
    return [t for t in texts if isinstance(t, str)]


REQUESTS: list[tuple[str, Callable[[str], LLMRequest]]] = [
    ("classify", lambda t: classify_request(t, ClassifyContext(task="scale payments", anchor="after_plan"))),
    (
        "plan",
        lambda t: plan_request(plan_context("scale", TOOLS, feedback=[t, t], rejected=[], completed=[], max_steps=5)),
    ),
    ("revise", lambda t: revise_request("scale", STEP, TOOLS, feedback=t, suggested_fix=t)),
    ("refine", lambda t: refine_request("scale", "*Done*", t, [STEP])),
    ("propose", lambda t: propose_request(t, "scale", [STEP], TOOLS)),
]


@pytest.mark.parametrize(("purpose", "build"), REQUESTS, ids=[p for p, _ in REQUESTS])
def test_request_long_text_is_read_up_to_read_limit(purpose: str, build: Callable[[str], LLMRequest]) -> None:
    request = build(LONG)
    assert request.purpose == purpose
    texts = _read_texts(request)
    assert texts and all(t == LONG[:READ_LIMIT] for t in texts)
    prompt = request.messages[-1]["content"]
    assert "use 3 replicas" in prompt and LONG[: READ_LIMIT + 1] not in prompt


@pytest.mark.parametrize("text", ["not payments, checkout", "x" * READ_LIMIT], ids=["short", "at the limit"])
@pytest.mark.parametrize(("purpose", "build"), REQUESTS, ids=[p for p, _ in REQUESTS])
def test_request_text_within_limit_is_read_whole(purpose: str, build: Callable[[str], LLMRequest], text: str) -> None:
    texts = _read_texts(build(text))
    assert texts and all(t == text for t in texts)


class RecordingModel:
    """The offline model, keeping every request it was asked."""

    name = "recording"

    def __init__(self) -> None:
        self.requests: list[LLMRequest] = []

    async def complete(self, request: LLMRequest) -> str:
        self.requests.append(request)
        return await MODEL.complete(request)


async def test_runtime_long_correction_stored_whole_and_read_capped(tmp_path: Path) -> None:
    model = RecordingModel()
    correction = "rethink it: not payments, checkout" + "\n" * (2 * READ_LIMIT)  # the offline reader is not certain
    async with AsyncStore(tmp_path / "runs.db") as store:
        runtime = Runtime(store, LLMBrain(model), TOOLS)
        state = await runtime.start("scale payments to 2 replicas", "U1")
        reading, state = await runtime.say(state.id, correction, "U1")
        stored, _ = await store.load(state.id)
    assert reading is not None and reading.intent == "replan"
    assert stored.feedback[-1].text == correction
    assert [r.purpose for r in model.requests] == ["plan", "classify", "plan"]
    _, classify, replan = model.requests
    assert classify.context["text"] == correction[:READ_LIMIT]
    assert replan.context["feedback"] == [correction[:READ_LIMIT]]
    assert [s.params["service"] for s in state.plan] == ["checkout"]


async def test_result_check_reads_a_long_task_off_the_loop_and_a_short_one_on_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loop_thread = threading.get_ident()
    readers: list[int] = []
    real = agent.not_done.not_done

    def recording(state: RunState, tools: ToolRegistry) -> list[str]:
        readers.append(threading.get_ident())
        return real(state, tools)

    monkeypatch.setattr(agent.not_done, "not_done", recording)
    short = RunState(id="r1", task="scale payments, then check errors", requester="U1", created_at=0, updated_at=0)
    long = short.model_copy(update={"id": "r2", "task": "scale payments, then check errors; " * 200})
    assert await checked(short, TOOLS) == ["check errors"]
    assert await checked(long, TOOLS) == ["check errors"]
    assert readers[0] == loop_thread, "a one-line task is checked at once"
    assert readers[1] != loop_thread, "a long task is checked in a thread: the loop keeps serving"
