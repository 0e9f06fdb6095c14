"""A correction that cannot be applied says why: the run stays at the same review and nothing is counted."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent.brain import LLMBrain
from agent.config import AnchorsRule, PolicyConfig
from agent.models import Approve, Risk, RunState
from agent.offline import OfflineModel
from agent.runtime import Runtime
from agent.tools import ToolRegistry, load_tools, tool
from storage.facade import AsyncStore
from tests.fakes import ScriptedModel

TOOLS = load_tools(["demo.tools"])


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[AsyncStore]:
    async with AsyncStore(tmp_path / "runs.db") as opened:
        yield opened


GATES_APART = PolicyConfig(anchors=AnchorsRule(merge_gate=False))  # approving the plan leaves the gate to ask


async def _at_gate(runtime: Runtime) -> RunState:
    state = await runtime.start("scale payments to 3 replicas", "U1")
    assert state.pending is not None and state.pending.anchor == "after_plan"
    state = await runtime.decide(state.id, Approve(), "U1")
    assert state.pending is not None and state.pending.anchor == "before_risky_step"
    return state


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("第一步的参数错了，换成 orders 服务", "There is no service `orders`. Known: payments, checkout, search"),
        ("step 1 should use orders", "There is no service `orders`."),
        ("redo this step", "That changes nothing in step 1 (`scale_service` keeps service=payments, replicas=3)"),
    ],
)
async def test_correction_that_cannot_apply_stays_at_the_review_uncounted(
    store: AsyncStore, text: str, why: str
) -> None:
    runtime = Runtime(store, LLMBrain(OfflineModel()), TOOLS, config=GATES_APART)
    before = await _at_gate(runtime)

    reading, after = await runtime.say(before.id, text, "U1")

    assert reading is not None and reading.intent == "retry_step"
    assert after.pending is not None and after.pending.anchor == "before_risky_step" and after.pending.step == 1
    assert after.pending.note is not None and why in after.pending.note
    assert (after.retries, after.feedback) == (0, [])
    assert after.plan[0].params == {"service": "payments", "replicas": 3}
    assert after.pending.digest == after.plan[0].digest  # the same request is open for approval again


async def test_correction_with_a_known_value_applies_and_counts(store: AsyncStore) -> None:
    runtime = Runtime(store, LLMBrain(OfflineModel()), TOOLS, config=GATES_APART)
    before = await _at_gate(runtime)

    _, after = await runtime.say(before.id, "换成 checkout 服务", "U1")

    assert after.plan[0].params == {"service": "checkout", "replicas": 3}
    assert after.retries == 1 and [f.text for f in after.feedback] == ["换成 checkout 服务"]
    assert after.pending is not None and after.pending.note is None


async def test_model_revision_with_unknown_value_is_refused_without_repair(store: AsyncStore) -> None:
    plan = {"steps": [{"tool": "scale_service", "params": {"service": "payments", "replicas": 3}, "reason": "asked"}]}
    model = ScriptedModel(json.dumps(plan), json.dumps({"params": {"service": "orders"}, "reason": "as asked"}))
    runtime = Runtime(store, LLMBrain(model), TOOLS)
    state = await runtime.start("scale payments to 3 replicas", "U1")
    assert state.pending is not None and state.pending.anchor == "after_plan"

    _, after = await runtime.say(state.id, "use the orders service in step 1", "U1")

    assert model.purposes == ["plan", "revise"]  # the reading was certain; no repair round on the value
    assert after.pending is not None and after.pending.anchor == "after_plan"
    assert after.pending.note is not None and "There is no service `orders`" in after.pending.note
    assert (after.retries, after.feedback) == (0, [])


def _channels() -> list[str]:
    return ["#ops", "#payments-oncall"]


@tool(risk=Risk.WRITE, values={"channel": _channels})
def announce(channel: str, text: str) -> str:
    """Announce something in a channel."""
    return f"{channel}: {text}"


async def test_value_outside_a_tools_values_provider_is_refused(store: AsyncStore) -> None:
    tools = ToolRegistry()
    tools.add_function(announce)
    plan = {"steps": [{"tool": "announce", "params": {"channel": "#ops", "text": "deploy done"}, "reason": "asked"}]}
    model = ScriptedModel(json.dumps(plan), json.dumps({"params": {"channel": "#nope"}, "reason": "as asked"}))
    runtime = Runtime(store, LLMBrain(model), tools)
    state = await runtime.start("announce the deploy in #ops", "U1")

    _, after = await runtime.say(state.id, "step 1 should post to #nope", "U1")

    assert after.pending is not None and after.pending.anchor == "after_plan"
    assert after.pending.note == "Step 1 was not changed: There is no channel `#nope`. Known: #ops, #payments-oncall."
    assert (after.retries, after.feedback, after.plan[0].params["channel"]) == (0, [], "#ops")
