"""A replan keeps the task: every part of the task and of earlier feedback that nobody took back stays
in the new plan, and a later instruction replaces an older conflicting one instead of piling up.
Offline, with a scripted model, and with litellm over HTTP to a local OpenAI-compatible server."""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agent.brain import LLMBrain
from agent.llm import LiteLLMModel
from agent.models import Correct, PlannedStep, RunState
from agent.offline import OfflineModel
from agent.runtime import Runtime
from agent.tools import load_tools
from storage.facade import AsyncStore
from tests.fakes import ScriptedModel
from tests.fakes.openai_server import serve_openai

TOOLS = load_tools(["demo.tools"])
OFFLINE = LLMBrain(OfflineModel())
LOGS_FIRST = "look at the error logs of payments before restarting it, and only restart if there are errors"
RESTART_THEN_CHECK = "restart payments and check errors after"

Plan = list[tuple[str, dict[str, Any]]]


async def replan(task: str, feedback: list[str]) -> Plan:
    """The plan after each message in turn, as a run gets it: all feedback so far, the last plan rejected."""
    steps = await OFFLINE.plan(task, TOOLS, feedback=[], rejected=[], completed=[], max_steps=10)
    for given in range(1, len(feedback) + 1):
        rejected = [PlannedStep(tool=s.tool, params=s.params, reason=s.reason) for s in steps]
        steps = await OFFLINE.plan(
            task, TOOLS, feedback=feedback[:given], rejected=rejected, completed=[], max_steps=10
        )
    return [(s.tool, s.params) for s in steps]


def shape(plan: Plan, *keys: str) -> list[tuple[str, ...]]:
    return [(tool, *(str(params.get(k, "")) for k in keys)) for tool, params in plan]


# --- offline -----------------------------------------------------------------------

KEEPS: list[tuple[str, list[str], list[tuple[str, ...]]]] = [
    # the case: a condition on the restart is no "only this step"; the log check stays, first
    (
        LOGS_FIRST,
        ["only restart payments if there are errors"],
        [("read_logs", "payments", "error"), ("restart_service", "payments", "")],
    ),
    (
        "look at the error logs before restarting, and only restart if there are errors",
        ["payments"],
        [("read_logs", "payments", "error"), ("restart_service", "payments", "")],
    ),
    # a part taken back comes back when a later message names it again
    (
        LOGS_FIRST,
        ["skip the log check", "actually, do look at the error logs first"],
        [("read_logs", "payments", "error"), ("restart_service", "payments", "")],
    ),
    (
        LOGS_FIRST,
        ["不要看日志", "还是先看日志吧"],
        [("read_logs", "payments", "error"), ("restart_service", "payments", "")],
    ),
    (
        LOGS_FIRST,
        ["don't restart", "ok, restart it after all"],
        [("read_logs", "payments", "error"), ("restart_service", "payments", "")],
    ),
    (
        LOGS_FIRST,
        ["just check the logs", "and restart if there are errors"],
        [("read_logs", "payments", "error"), ("restart_service", "payments", "")],
    ),
    (
        LOGS_FIRST,
        ["also notify #ops", "don't notify", "notify #ops after all"],
        [("read_logs", "payments", "error"), ("restart_service", "payments", ""), ("send_message", "", "")],
    ),
    # a later instruction replaces an older conflicting one
    (
        LOGS_FIRST,
        ["use checkout", "no, use auth"],
        [("read_logs", "auth", "error"), ("restart_service", "auth", "")],
    ),
    (
        LOGS_FIRST,
        ["also notify #ops", "don't notify"],
        [("read_logs", "payments", "error"), ("restart_service", "payments", "")],
    ),
    (
        RESTART_THEN_CHECK,
        ["check latency first", "no, check the logs first"],
        [("read_logs", "payments", "error"), ("query_metrics", "payments", ""), ("restart_service", "payments", "")],
    ),
    # naming a part again keeps it once; "also" adds without replacing what the task named
    (
        "look at the error logs before restarting, and only restart if there are errors",
        ["先看 payments 的日志"],
        [("read_logs", "payments", "error"), ("restart_service", "payments", "")],
    ),
    (
        RESTART_THEN_CHECK,
        ["check the logs first"],
        [("read_logs", "payments", "error"), ("restart_service", "payments", "")],
    ),
    # "X first, before Y" puts an X ahead of Y; the task's own X after Y is a part nobody took back
    (
        RESTART_THEN_CHECK,
        ["Read the payments error logs first, before restarting anything"],
        [("read_logs", "payments", "error"), ("restart_service", "payments", ""), ("read_logs", "payments", "error")],
    ),
    (
        RESTART_THEN_CHECK,
        ["先看日志再重启"],
        [("read_logs", "payments", "error"), ("restart_service", "payments", ""), ("read_logs", "payments", "error")],
    ),
    (
        "重启 payments，然后检查错误",
        ["先看日志再重启"],
        [("read_logs", "payments", "error"), ("restart_service", "payments", ""), ("read_logs", "payments", "error")],
    ),
    (
        "重启 payments，然后检查错误",
        ["先看一下 payments 的错误日志，再重启"],
        [("read_logs", "payments", "error"), ("restart_service", "payments", ""), ("read_logs", "payments", "error")],
    ),
    # a log check the task already does before the restart is moved, not doubled
    (
        LOGS_FIRST,
        ["read the logs first, before restarting"],
        [("read_logs", "payments", "error"), ("restart_service", "payments", "")],
    ),
    (
        RESTART_THEN_CHECK,
        ["also restart checkout"],
        [("restart_service", "payments", ""), ("read_logs", "payments", "error"), ("restart_service", "checkout", "")],
    ),
    (
        RESTART_THEN_CHECK,
        ["also notify #ops", "还要检查延迟"],
        [
            ("restart_service", "payments", ""),
            ("read_logs", "payments", "error"),
            ("send_message", "", ""),
            ("query_metrics", "payments", ""),
        ],
    ),
]


@pytest.mark.parametrize(("task", "feedback", "expected"), KEEPS, ids=[" / ".join(f) for _, f, _ in KEEPS])
async def test_offline_replan_multi_part_task_keeps_what_was_not_taken_back(
    task: str, feedback: list[str], expected: list[tuple[str, ...]]
) -> None:
    plan = await replan(task, feedback)

    assert shape(plan, "service", "level") == expected, plan


async def test_offline_replan_later_version_replaces_the_earlier_one() -> None:
    plan = await replan("deploy payments 2.4.2 and check errors after", ["use 2.4.1", "use 2.4.3"])

    assert shape(plan, "service", "version") == [("deploy_service", "payments", "2.4.3"), ("read_logs", "payments", "")]


async def test_offline_replan_naming_a_planned_step_with_a_new_value_changes_it() -> None:
    plan = await replan("scale checkout to 5 replicas and notify #ops", ["make it 6 replicas"])

    assert shape(plan, "service", "replicas") == [("scale_service", "checkout", "6"), ("send_message", "", "")]


# --- a model's replan is checked against the task -------------------------------------


def plan_json(*steps: tuple[str, dict[str, Any]]) -> str:
    return json.dumps({"steps": [{"tool": t, "params": p, "reason": f"{t} it"} for t, p in steps]})


RESTART = ("restart_service", {"service": "payments"})
LOGS = ("read_logs", {"service": "payments", "level": "error"})
REJECTED = [PlannedStep(tool="restart_service", params={"service": "payments"})]


async def test_model_replan_that_drops_a_part_goes_back_once_naming_it() -> None:
    model = ScriptedModel(plan_json(RESTART), plan_json(LOGS, RESTART))

    steps = await LLMBrain(model).plan(
        LOGS_FIRST,
        TOOLS,
        feedback=["only restart payments if there are errors"],
        rejected=REJECTED,
        completed=[],
        max_steps=10,
    )

    assert [s.tool for s in steps] == ["read_logs", "restart_service"]
    assert model.purposes == ["plan", "plan"]
    repair = model.requests[1].messages[-1]["content"]
    assert "leaves out read_logs" in repair and "look at the error logs of payments" in repair


async def test_model_replan_that_moves_the_check_after_the_restart_ahead_goes_back_naming_it() -> None:
    model = ScriptedModel(plan_json(LOGS, RESTART), plan_json(LOGS, RESTART, LOGS))

    steps = await LLMBrain(model).plan(
        RESTART_THEN_CHECK,
        TOOLS,
        feedback=["Read the payments error logs first, before restarting anything"],
        rejected=[*REJECTED, PlannedStep(tool="read_logs", params=LOGS[1])],
        completed=[],
        max_steps=10,
    )

    assert [s.tool for s in steps] == ["read_logs", "restart_service", "read_logs"]
    repair = model.requests[1].messages[-1]["content"]
    assert "leaves out read_logs (From the task: “check errors”)" in repair


async def test_model_replan_keeping_a_step_taken_back_goes_back_once() -> None:
    model = ScriptedModel(plan_json(LOGS, RESTART), plan_json(RESTART))

    steps = await LLMBrain(model).plan(
        LOGS_FIRST, TOOLS, feedback=["skip the log check"], rejected=REJECTED, completed=[], max_steps=10
    )

    assert [s.tool for s in steps] == ["restart_service"]
    assert "still has read_logs, which the feedback took back" in model.requests[1].messages[-1]["content"]


async def test_model_replan_repaired_plan_is_taken_as_it_is() -> None:
    model = ScriptedModel(plan_json(RESTART), plan_json(RESTART))

    steps = await LLMBrain(model).plan(
        LOGS_FIRST,
        TOOLS,
        feedback=["only restart payments if there are errors"],
        rejected=REJECTED,
        completed=[],
        max_steps=10,
    )

    assert [s.tool for s in steps] == ["restart_service"]  # a person reviews it; no third call, no failure
    assert model.remaining == 0 and len(model.requests) == 2


async def test_model_first_plan_is_not_checked() -> None:
    model = ScriptedModel(plan_json(RESTART))

    steps = await LLMBrain(model).plan(LOGS_FIRST, TOOLS, feedback=[], rejected=[], completed=[], max_steps=10)

    assert [s.tool for s in steps] == ["restart_service"] and model.purposes == ["plan"]


async def test_plan_request_lists_the_tasks_parts_and_feedback_oldest_first() -> None:
    model = ScriptedModel(plan_json(LOGS, RESTART))

    await LLMBrain(model).plan(
        LOGS_FIRST, TOOLS, feedback=["use checkout", "no, use payments"], rejected=REJECTED, completed=[], max_steps=10
    )

    prompt = model.requests[0].messages[1]["content"]
    assert "Parts of the task (each stays unless feedback takes it back)" in prompt
    assert '"look at the error logs of payments before restarting it"' in prompt
    assert '"only restart if there are errors"' in prompt
    assert prompt.index('"1. use checkout"') < prompt.index('"2. no, use payments"')
    assert "the latest wins" in model.requests[0].messages[0]["content"]


# --- the run, with litellm over HTTP ---------------------------------------------------


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    real_connect = socket.socket.connect

    def connect(self: socket.socket, address: Any) -> Any:
        if self.family in (socket.AF_INET, socket.AF_INET6) and address[0] not in {"127.0.0.1", "::1", "localhost"}:
            raise OSError(f"test tried to reach the network: {address!r}")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-local")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[AsyncStore]:
    async with AsyncStore(tmp_path / "runs.db") as opened:
        yield opened


async def change_plan(runtime: Runtime, state: RunState, feedback: str) -> RunState:
    """What "Change the plan" with this feedback does (the button and its feedback box, on any channel)."""
    return await runtime.decide(state.id, Correct(intent="replan", feedback=feedback), "U1")


def planned(state: RunState) -> list[tuple[str, str]]:
    return [(s.tool, str(s.params.get("level", ""))) for s in state.plan]


async def test_run_over_http_replan_keeps_the_log_check_and_a_later_correction_brings_it_back(
    store: AsyncStore,
) -> None:
    async with serve_openai() as llm:
        model = LiteLLMModel("openai/test-model", api_base=llm.base_url, timeout=5, backoff=0)
        runtime = Runtime(store, LLMBrain(model), TOOLS)
        llm.reply(plan_json(LOGS, RESTART))
        state = await runtime.start(LOGS_FIRST, "U1")
        assert planned(state) == [("read_logs", "error"), ("restart_service", "")]

        # the model drops the log check on a replan (the defect): sent back once, naming it; the repaired
        # plan is the plan as it was, so the correction changed nothing and is not counted
        llm.reply(plan_json(RESTART), plan_json(LOGS, RESTART))
        state = await change_plan(runtime, state, "only restart payments if there are errors")
        assert planned(state) == [("read_logs", "error"), ("restart_service", "")]
        repair = llm.requests[-1]["messages"][-1]["content"]
        assert "leaves out read_logs" in repair
        assert state.pending is not None and (state.pending.note or "").startswith("The plan was not changed")
        assert (state.retries, state.feedback) == (0, [])

        # taken back: it goes
        llm.reply(plan_json(RESTART))
        state = await change_plan(runtime, state, "skip the log check")
        assert planned(state) == [("restart_service", "")]

        # and a later correction brings it back, even when the model forgets it at first
        llm.reply(plan_json(RESTART), plan_json(LOGS, RESTART))
        state = await change_plan(runtime, state, "actually, do look at the error logs first")
        assert planned(state) == [("read_logs", "error"), ("restart_service", "")]
        prompt = llm.requests[-2]["messages"][1]["content"]
        assert '"2. actually, do look at the error logs first"' in prompt

        assert llm.unscripted == 0 and len(llm.requests) == 6
        assert state.pending is not None and state.pending.anchor == "after_plan"


async def test_run_offline_replan_keeps_the_log_check_and_brings_it_back(store: AsyncStore) -> None:
    runtime = Runtime(store, OFFLINE, TOOLS)
    state = await runtime.start(LOGS_FIRST, "U1")

    state = await change_plan(runtime, state, "only restart payments if there are errors")
    assert planned(state) == [("read_logs", "error"), ("restart_service", "")]
    state = await change_plan(runtime, state, "skip the log check")
    assert planned(state) == [("restart_service", "")]
    state = await change_plan(runtime, state, "actually, do look at the error logs first")

    assert planned(state) == [("read_logs", "error"), ("restart_service", "")]
    assert [f.text for f in state.feedback][-1] == "actually, do look at the error logs first"
