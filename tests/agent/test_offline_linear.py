"""No message can stall the bot: the offline model reads any text in linear time, off the event loop,
and what a person wrote reaches any model capped to ``READ_LIMIT`` characters (stored whole)."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import pytest

from agent.brain import LLMBrain
from agent.models import Risk, Step
from agent.offline import OfflineModel
from agent.ports import ClassifyContext, LLMRequest, Purpose
from agent.prompts import (
    READ_LIMIT,
    classify_request,
    plan_request,
    propose_request,
    refine_request,
    revise_request,
)
from agent.runtime import Runtime
from agent.tools import load_tools, tool
from storage.facade import AsyncStore

# A regression guard, not a speed figure (those are in bench/reader.py): the quadratic reading took
# 40 s for 16,000 newlines; linear reading takes well under a second, so 2 s leaves room on a busy machine.
BOUND_S = 2.0
# The loop must answer within this while the offline model reads a huge text in its thread.
MAX_GAP_S = 0.2

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


HUGE: dict[str, str] = {
    "16,000 newlines": "\n" * 16_000,
    "a correction padded with 16,000 newlines": "not payments, checkout" + "\n" * 16_000 + "use 3 replicas",
    "50,000 mixed characters": mixed(50_000),
    # one for each pattern or loop that was quadratic
    "spaces before no separator (clause splits, instead-of)": "restart" + " " * 50_000 + "payments",
    "unclosed quotation marks": "send “x" * 12_500,
    "unclosed corner brackets": "send 「x" * 12_500,
    "a step word and spaces (step references)": "scale step" + " " * 50_000 + "x",
    "a parameter name and spaces (parameter values)": "hold payments window" + " " * 50_000 + "!",
    "a long hyphenated word (channel names)": "notify " + "a-" * 25_000 + " x channel",
    "a long word and no channel named (channel names)": "notify " + "x" * 50_000,
    "many clauses that say first": "first check payments; " * 2_500,
    "many steps without their service": "restart, " * 6_000 + "payments",
    "many equal steps": "restart payments, " * 3_000,
}

STEPS = [
    {"number": 1, "tool": "scale_service", "params": {"service": "payments", "replicas": 2}, "status": "pending"},
    {"number": 2, "tool": "send_message", "params": {"channel": "#ops", "text": "done"}, "status": "pending"},
]


def contexts(text: str) -> list[tuple[Purpose, dict[str, Any]]]:
    """Every way the offline model reads a person's text: classify, plan (task and feedback), revise,
    propose and refine."""
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
    ]


CASES = [
    pytest.param(purpose, context, id=f"{name}-{purpose}-{i}")
    for name, text in HUGE.items()
    for i, (purpose, context) in enumerate(contexts(text))
]


@pytest.mark.parametrize(("purpose", "context"), CASES)
async def test_offline_model_huge_text_answers_within_bound(purpose: Purpose, context: dict[str, Any]) -> None:
    started = time.perf_counter()
    answer = await MODEL.complete(LLMRequest(purpose=purpose, messages=[], context=context))
    took = time.perf_counter() - started
    assert isinstance(json.loads(answer), dict)
    assert took < BOUND_S, f"the offline model took {took:.2f} s to read {purpose}; reading must be linear"


async def test_offline_model_classifying_huge_text_leaves_loop_serving() -> None:
    text = mixed(150_000, seed=11)
    context = {"text": text, "task": "scale payments", "anchor": "after_plan", "steps": STEPS}
    reading = asyncio.create_task(MODEL.complete(LLMRequest(purpose="classify", messages=[], context=context)))
    gaps: list[float] = []
    last = time.perf_counter()
    while not reading.done():  # the positive signal is the classification itself
        await asyncio.sleep(0.01)
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
    assert json.loads(await reading)["intent"] in ("approve", "cancel", "replan", "retry_step", "refine_output")
    # read on the loop, the whole classification would run before the first tick: one gap only
    assert len(gaps) >= 2, "the loop did not run while the model read: the reading blocked it"
    assert max(gaps) < MAX_GAP_S, f"the loop stalled {max(gaps) * 1000:.0f} ms while the model read"


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
    ("plan", lambda t: plan_request("scale", TOOLS, feedback=[t, t], rejected=[], completed=[], max_steps=5)),
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
