"""A correction that cannot be applied says why: the run stays at the same review and nothing is counted."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent.brain import LLMBrain
from agent.config import AnchorsRule, PolicyConfig
from agent.models import Approve, Correct, Policy, Risk, RunState
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


# --- every way a correction can fail to apply: told why, nothing counted, no note left behind ------------

RESTART_THEN_CHECK = "restart payments and check errors after"


async def _at_restart_gate(runtime: Runtime) -> RunState:
    state = await runtime.start(RESTART_THEN_CHECK, "U1")
    state = await runtime.decide(state.id, Approve(), "U1")
    assert state.pending is not None and state.pending.anchor == "before_risky_step"
    return state


@pytest.mark.parametrize(
    "text",
    [
        "restart orders, not payments",
        "restart orders instead of payments",
        "use the orders service instead",
        "不是payments，是orders",
        "别动payments，重启orders",
    ],
)
async def test_gate_correction_naming_an_unknown_service_names_it_not_the_negated_or_a_stray_word(
    store: AsyncStore, text: str
) -> None:
    runtime = Runtime(store, LLMBrain(OfflineModel()), TOOLS, config=GATES_APART)
    before = await _at_restart_gate(runtime)

    after = await runtime.decide(before.id, Correct(intent="retry_step", feedback=text), "U1")

    assert after.pending is not None and after.pending.note is not None
    assert after.pending.note.startswith("Step 1 was not changed: There is no service `orders`. Known: payments")
    assert (after.retries, after.feedback, after.plan[0].params) == (0, [], {"service": "payments"})


@pytest.mark.parametrize(
    "text", ["restart checkout, not payments", "不是payments，重启checkout", "别动payments，重启checkout"]
)
async def test_gate_correction_naming_a_known_service_beside_a_negated_one_applies_it(
    store: AsyncStore, text: str
) -> None:
    runtime = Runtime(store, LLMBrain(OfflineModel()), TOOLS, config=GATES_APART)
    before = await _at_restart_gate(runtime)

    after = await runtime.decide(before.id, Correct(intent="retry_step", feedback=text), "U1")

    assert after.plan[0].params == {"service": "checkout"} and after.retries == 1


async def test_refused_gate_correction_leaves_no_note_and_keeps_the_steps_why(store: AsyncStore) -> None:
    runtime = Runtime(store, LLMBrain(OfflineModel()), TOOLS, config=GATES_APART)
    before = await _at_restart_gate(runtime)
    why = before.plan[0].reason

    refused = await runtime.decide(before.id, Correct(intent="retry_step", feedback="use the same values"), "U1")
    assert refused.pending is not None and (refused.pending.note or "").startswith("That changes nothing")
    replanned = await runtime.decide(refused.id, Correct(intent="replan", feedback="use the orders service"), "U1")

    assert replanned.pending is not None and replanned.pending.anchor == "before_risky_step"
    assert (replanned.pending.note or "").startswith("The plan was not changed: There is no service `orders`.")
    assert replanned.plan[0].reason == why and (replanned.retries, replanned.feedback) == (0, [])
    done = await runtime.decide(replanned.id, Approve(), "U1")
    assert done.pending is None or done.pending.note is None


async def test_plan_review_replan_naming_an_unknown_service_changes_nothing_and_says_so(store: AsyncStore) -> None:
    runtime = Runtime(store, LLMBrain(OfflineModel()), TOOLS)
    state = await runtime.start(RESTART_THEN_CHECK, "U1")

    after = await runtime.decide(state.id, Correct(intent="replan", feedback="use the orders service instead"), "U1")

    assert after.pending is not None and after.pending.anchor == "after_plan"
    assert after.pending.note == (
        "The plan was not changed: There is no service `orders`. "
        "Known: payments, checkout, search, auth, notifications."
    )
    assert [s.reason for s in after.plan] == [s.reason for s in state.plan]
    assert (after.retries, after.feedback, after.rejected_plans) == (0, [], [])


async def test_refine_that_comes_back_the_same_is_refused_uncounted(store: AsyncStore) -> None:
    plan = {"steps": [{"tool": "list_services", "params": {}, "reason": "asked"}]}
    same = json.dumps({"text": "All five services listed."})
    model = ScriptedModel(json.dumps(plan), same, same)
    # every anchor kept: a read-only run is otherwise delivered as done, with no result review to refine at
    runtime = Runtime(store, LLMBrain(model), TOOLS, policy=Policy(dynamic_anchors=False))
    state = await runtime.start("list the services", "U1")
    while state.pending is not None and state.pending.anchor != "before_result":  # the plan, then "continue anyway"
        state = await runtime.decide(state.id, Approve(), "U1")
    assert state.pending is not None and state.pending.anchor == "before_result"

    after = await runtime.decide(state.id, Correct(intent="refine_output", feedback="make it nicer"), "U1")

    assert after.pending is not None and after.pending.anchor == "before_result"
    assert (after.pending.note or "").startswith("The result was not changed")
    assert (after.retries, after.feedback, after.output) == (0, [], "All five services listed.")


async def test_reading_that_offers_the_negated_value_as_the_fix_does_not_reach_the_reviser(store: AsyncStore) -> None:
    plan = {"steps": [{"tool": "restart_service", "params": {"service": "payments"}, "reason": "asked"}]}
    model = ScriptedModel(json.dumps(plan), json.dumps({"params": {"service": "checkout"}, "reason": "as asked"}))
    runtime = Runtime(store, LLMBrain(model), TOOLS, config=GATES_APART)
    state = await runtime.decide((await runtime.start("restart payments", "U1")).id, Approve(), "U1")
    assert state.pending is not None and state.pending.anchor == "before_risky_step"

    fix = Correct(intent="retry_step", feedback="restart checkout, not payments", suggested_fix="payments")
    after = await runtime.decide(state.id, fix, "U1")

    assert model.requests[1].context["suggested_fix"] is None
    assert "Suggested fix" not in model.requests[1].messages[-1]["content"]
    assert after.plan[0].params == {"service": "checkout"}
