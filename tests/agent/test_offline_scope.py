"""What no tool can do: tasks outside the tools end at once, instructions never land on another target."""

from __future__ import annotations

import pytest

from agent.brain import LLMBrain
from agent.human import NothingToDo, PlannerQuestion
from agent.models import Step
from agent.offline import OfflineModel
from agent.tools import load_tools

DEMO = load_tools(["demo.tools"])
BRAIN = LLMBrain(OfflineModel())
CAN_DO = (
    "What I can do here: list services, check service, read logs, query metrics, scale service, restart service, "
    "deploy service, rollback service, drop cache, send message — for service: payments, checkout, search, auth, "
    "notifications."
)
EARLIER = [Step(number=1, tool="check_service", params={"service": "payments"}, status="done")]


async def _plan(task: str) -> list[str]:
    try:
        steps = await BRAIN.plan(task, DEMO, feedback=[], rejected=[], completed=[], max_steps=10, ask_below=0.5)
    except PlannerQuestion:
        return ["(a question)"]
    return [s.tool for s in steps]


@pytest.mark.parametrize("task", ["order pizza", "book a flight to Paris", "write me a poem", "订披萨"])
async def test_offline_plan_task_no_tool_can_do_ends_with_what_the_tools_can_do(task: str) -> None:
    with pytest.raises(NothingToDo) as none:
        await _plan(task)
    assert none.value.reason == f"No tool here can do “{task}”. {CAN_DO}"


@pytest.mark.parametrize(
    "task",
    [
        "restart payments and check errors after",
        "why is checkout slow",
        "payments is down",
        "what's wrong with auth",
        "investigate payments",
        "how is everything?",
        "is anything broken",
        "any alerts?",
        "status",
        "what is going on?",
        "check disk usage on db-2",
        "roll back search",
        "tell #ops we are done",
        "clean up the cache for search",
        "支付服务怎么了",
        "scale checkout to 6 replicas",
        "deploy payments 2.4.2",
    ],
)
async def test_offline_plan_real_ops_task_still_plans_or_asks(task: str) -> None:
    assert await _plan(task), "an ops task gets a plan or a question, never the no-tool answer"


@pytest.mark.parametrize(
    ("instruction", "word"),
    [("check disk usage on db-2", "db-2"), ("restart redis", "redis"), ("scale web-01 to 3 replicas", "web-01")],
)
async def test_takeover_instruction_naming_an_unknown_target_names_it_and_proposes_nothing(
    instruction: str, word: str
) -> None:
    reading = await BRAIN.propose(instruction, "restart payments", EARLIER, DEMO)
    assert reading.kind == "unclear" and reading.step is None
    assert reading.message.startswith(
        f"There is no service `{word}`. Known: payments, checkout, search, auth, notifications."
    )


async def test_takeover_instruction_no_tool_can_do_says_what_the_tools_can_do() -> None:
    reading = await BRAIN.propose("order pizza", "restart payments", EARLIER, DEMO)
    assert reading.kind == "unclear"
    assert reading.message.startswith(f"No tool can do “order pizza”. {CAN_DO}")
    assert "List every service" not in reading.message, "a line, not the tools' docstrings"


@pytest.mark.parametrize(
    ("instruction", "tool", "params"),
    [
        ("restart payments", "restart_service", {"service": "payments"}),
        ("read error logs for checkout", "read_logs", {"service": "checkout", "level": "error"}),
        ("read logs for the last hour", "read_logs", {"service": "payments"}),
        ("check it again", "check_service", {"service": "payments"}),
        ("restart payments in prod", "restart_service", {"service": "payments"}),
        ("scale payments to 5 replicas", "scale_service", {"service": "payments", "replicas": 5}),
        ("send a message to the ops channel saying all clear", "send_message", {"channel": "#ops"}),
        ("重启 auth", "restart_service", {"service": "auth"}),
    ],
)
async def test_takeover_instruction_with_a_known_or_no_target_becomes_its_step(
    instruction: str, tool: str, params: dict[str, object]
) -> None:
    reading = await BRAIN.propose(instruction, "restart payments", EARLIER, DEMO)
    assert reading.step is not None, reading.message
    assert reading.step.tool == tool and params.items() <= reading.step.params.items()
