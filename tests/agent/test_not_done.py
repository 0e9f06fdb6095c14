"""A result never says "Done" while a part of the task was not done: it names what was not done."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agent.brain import LLMBrain
from agent.models import Approve, Correct, RunState
from agent.offline import OfflineModel
from agent.runtime import Runtime
from agent.tools import load_tools
from blocks.run_card import run_card as slack_run_card
from cli.render import outcome_text
from demo.world import InMemoryWorld, seed, use_world
from feishu.cards import run_card as feishu_run_card
from storage.facade import AsyncStore
from tests.fakes import ScriptedModel

TOOLS = load_tools(["demo.tools"])
TASK = "restart payments and check errors after"
FIRST = "Read the payments error logs first, before restarting anything"
LOGS = ("read_logs", {"service": "payments", "level": "error"})
RESTART = ("restart_service", {"service": "payments"})


def plan_json(*steps: tuple[str, dict[str, Any]]) -> str:
    return json.dumps({"steps": [{"tool": t, "params": p, "reason": f"{t} it"} for t, p in steps]})


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[AsyncStore]:
    async with AsyncStore(tmp_path / "runs.db") as opened:
        yield opened


def runtime(store: AsyncStore, model: Any) -> Runtime:
    world = InMemoryWorld()
    seed(world, 0.0)
    return Runtime(store, LLMBrain(model), TOOLS, tool_context=lambda: use_world(world))


async def approve_all(rt: Runtime, state: RunState) -> RunState:
    while state.pending is not None and state.pending.anchor != "before_result":
        state = await rt.decide(state.id, Approve(), "U1")
    return state


async def test_offline_run_with_x_first_does_every_part_and_says_done(store: AsyncStore) -> None:
    rt = runtime(store, OfflineModel())
    state = await rt.start(TASK, "U1")
    state = await rt.decide(state.id, Correct(intent="replan", feedback=FIRST), "U1")
    assert [s.tool for s in state.plan] == ["read_logs", "restart_service", "read_logs"]

    state = await approve_all(rt, state)

    assert [s.status for s in state.plan] == ["done", "done", "done"]
    assert state.not_done == [] and (state.output or "").startswith("**Done")


async def test_model_plan_that_drops_the_check_after_is_partly_done_naming_it(store: AsyncStore) -> None:
    # the model leaves the check after the restart out twice; a person approves the plan as it is
    model = ScriptedModel(
        plan_json(RESTART, LOGS), plan_json(LOGS, RESTART), plan_json(LOGS, RESTART), json.dumps({"text": "Done."})
    )
    rt = runtime(store, model)
    state = await rt.start(TASK, "U1")
    state = await rt.decide(state.id, Correct(intent="replan", feedback=FIRST), "U1")
    assert [s.tool for s in state.plan] == ["read_logs", "restart_service"]

    state = await approve_all(rt, state)
    assert state.pending is not None and state.pending.anchor == "before_result"
    assert state.not_done == ["check errors"]
    assert (state.output or "").startswith("**Partly done — not done: check errors**")
    assert "\nPartly done." in (state.output or "")  # the writer's own "Done." no longer reads as all done

    state = await rt.decide(state.id, Approve(), "U1")
    assert state.status == "done" and state.not_done == ["check errors"]
    # every channel's run card, and the terminal, say it where they would say "Done"
    slack = json.dumps(slack_run_card(state), ensure_ascii=False)
    assert "*🟡 Partly done* · not done: check errors" in slack and "✅ Done" not in slack
    feishu = json.dumps(feishu_run_card(state), ensure_ascii=False)
    assert "🟡 Partly done · not done: check errors" in feishu and "✅ Done" not in feishu
    assert outcome_text(state).splitlines()[1] == "🟡 Partly done — not done: check errors."


async def test_part_the_feedback_took_back_is_not_reported_as_not_done(store: AsyncStore) -> None:
    rt = runtime(store, OfflineModel())
    state = await rt.start(TASK, "U1")
    state = await rt.decide(state.id, Correct(intent="replan", feedback="don't check the errors"), "U1")
    assert [s.tool for s in state.plan] == ["restart_service"]

    state = await approve_all(rt, state)

    assert state.not_done == [] and (state.output or "").startswith("**Done")


async def test_chinese_task_with_a_part_left_out_says_so_in_chinese(store: AsyncStore) -> None:
    model = ScriptedModel(plan_json(RESTART), json.dumps({"text": "已完成：重启了 payments。"}))
    rt = runtime(store, model)
    state = await rt.start("重启 payments，然后检查错误", "U1")

    state = await approve_all(rt, state)

    assert (state.output or "").startswith("**部分完成 — 未完成：检查错误**")
    assert "部分完成：重启了 payments。" in (state.output or "")


async def test_reworked_partly_done_result_still_says_what_was_not_done(store: AsyncStore) -> None:
    outcome = "4 replicas, error rate 18.4% → 0.20%, p99 2,350 ms → 180 ms"
    table = json.dumps({"text": f"| Step | Outcome |\n| --- | --- |\n| restart payments | {outcome} |"})
    model = ScriptedModel(plan_json(RESTART), json.dumps({"text": "Done: restarted payments."}), table)
    rt = runtime(store, model)
    state = await approve_all(rt, await rt.start(TASK, "U1"))
    assert (state.output or "").startswith("**Partly done — not done: check errors**")

    state = await rt.decide(state.id, Correct(intent="refine_output", feedback="as a table"), "U1")

    assert state.pending is not None and state.pending.anchor == "before_result"
    assert (state.output or "").startswith("**Partly done — not done: check errors**")
    assert (state.output or "").count("not done: check errors") == 1 and "| restart payments |" in (state.output or "")
