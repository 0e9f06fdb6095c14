"""The offline model through LLMBrain: planner, replanning, reviser, classifier, text, takeover."""

from __future__ import annotations

import json
import re
from typing import Any, Literal

import pytest

from agent.brain import LLMBrain
from agent.errors import LLMError, PlanError
from agent.llm import LiteLLMModel, make_model
from agent.models import PlannedStep, Risk, Step
from agent.offline import OfflineModel, apply_refinement, classify_text, render_summary, split_clauses, zh_number
from agent.offline.vocabulary import CONCEPTS, concepts_in, reading_once
from agent.ports import ClassifyContext, LLMRequest
from agent.prompts import step_view
from agent.tools import ToolRegistry, load_tools, tool

DEMO = load_tools(["demo.tools"])
BRAIN = LLMBrain(OfflineModel())

Expected = list[tuple[str, dict[str, Any]]]


async def plan(task: str, *, feedback: list[str] | None = None, tools: ToolRegistry = DEMO, **kw: Any) -> Expected:
    rejected: list[PlannedStep] = []
    if feedback:
        rejected = list(await BRAIN.plan(task, tools, feedback=[], rejected=[], completed=[], max_steps=10))
    steps = await BRAIN.plan(
        task,
        tools,
        feedback=feedback or [],
        rejected=rejected,
        completed=kw.get("completed", []),
        max_steps=kw.get("max_steps", 10),
    )
    return [(s.tool, s.params) for s in steps]


def matches(actual: Expected, expected: Expected) -> bool:
    """Same tools in the same order; each expected param present with that value (defaults may be extra)."""
    return len(actual) == len(expected) and all(
        tool == want_tool and all(params.get(k) == v for k, v in want.items())
        for (tool, params), (want_tool, want) in zip(actual, expected, strict=True)
    )


# --- planner ----------------------------------------------------------------------

PLANS: list[tuple[str, Expected]] = [
    (
        "restart payments and check errors after",
        [("restart_service", {"service": "payments"}), ("read_logs", {"service": "payments", "level": "error"})],
    ),
    (
        "重启 payments 然后检查错误日志",
        [("restart_service", {"service": "payments"}), ("read_logs", {"service": "payments", "level": "error"})],
    ),
    (
        "check errors and latency for payments",
        [
            ("read_logs", {"service": "payments", "level": "error"}),
            ("query_metrics", {"service": "payments", "metric": "latency_p99"}),
        ],
    ),
    ("scale checkout to 5 replicas", [("scale_service", {"service": "checkout", "replicas": 5})]),
    ("扩容 checkout 到 5 个副本", [("scale_service", {"service": "checkout", "replicas": 5})]),
    ("缩容 search 到 2 个副本", [("scale_service", {"service": "search", "replicas": 2})]),
    (
        "deploy payments v2.5.0 then tell #ops saying payments is on 2.5.0, all good",
        [
            ("deploy_service", {"service": "payments", "version": "v2.5.0"}),
            ("send_message", {"channel": "#ops", "text": "payments is on 2.5.0, all good"}),
        ],
    ),
    (
        "发布 payments 2.4.2，然后通知 #ops",
        [("deploy_service", {"service": "payments", "version": "2.4.2"}), ("send_message", {"channel": "#ops"})],
    ),
    (
        "部署 checkout v2.5.0 之后检查延迟",
        [
            ("deploy_service", {"service": "checkout", "version": "v2.5.0"}),
            ("query_metrics", {"service": "checkout", "metric": "latency_p99"}),
        ],
    ),
    (
        "roll back checkout after checking its logs",
        [("read_logs", {"service": "checkout"}), ("rollback_service", {"service": "checkout"})],
    ),
    ("回滚 auth", [("rollback_service", {"service": "auth"})]),
    (
        "drop the search cache, then check search latency",
        [("drop_cache", {"service": "search"}), ("query_metrics", {"service": "search", "metric": "latency_p99"})],
    ),
    ("清缓存 search", [("drop_cache", {"service": "search"})]),
    ("查看 notifications 的状态", [("check_service", {"service": "notifications"})]),
    ("检查 payments 的延迟指标", [("query_metrics", {"service": "payments", "metric": "latency_p99"})]),
    ("show the last 50 error logs of auth", [("read_logs", {"service": "auth", "level": "error", "limit": 50})]),
    ("query cpu of search for the last 30 minutes", [("query_metrics", {"service": "search", "metric": "cpu"})]),
    (
        "restart payments and checkout",
        [("restart_service", {"service": "payments"}), ("restart_service", {"service": "checkout"})],
    ),
    (
        "notify #payments-oncall that payments was restarted",
        [("send_message", {"channel": "#payments-oncall", "text": "payments was restarted"})],
    ),
    (
        "restart payments, but first read the error logs",
        [("read_logs", {"service": "payments", "level": "error"}), ("restart_service", {"service": "payments"})],
    ),
    ("list services", [("list_services", {})]),
    ("列出所有服务", [("list_services", {})]),
    ("what is going on?", [("list_services", {})]),
    ("how is payments doing", [("check_service", {"service": "payments"})]),
]


@pytest.mark.parametrize(("task", "expected"), PLANS, ids=[t for t, _ in PLANS])
async def test_offline_plan_task_gives_steps_in_the_persons_order(task: str, expected: Expected) -> None:
    actual = await plan(task)

    assert matches(actual, expected), actual


async def test_offline_plan_steps_carry_risk_and_a_reason() -> None:
    steps = await BRAIN.plan(
        "restart payments and check errors after", DEMO, feedback=[], rejected=[], completed=[], max_steps=10
    )

    assert [s.risk for s in steps] == [Risk.EXEC, Risk.READ]
    assert steps[0].reason == "From the task: “restart payments”."


async def test_offline_plan_without_a_service_looks_around_and_says_why() -> None:
    steps = await BRAIN.plan("restart the service", DEMO, feedback=[], rejected=[], completed=[], max_steps=10)

    assert [s.tool for s in steps] == ["list_services"]
    assert "service" in steps[0].reason and "restart_service" in steps[0].reason


async def test_offline_plan_respects_max_steps() -> None:
    actual = await plan("restart payments, checkout, search and auth", max_steps=2)

    assert [p["service"] for _, p in actual] == ["payments", "checkout"]


async def test_offline_plan_skips_steps_already_done() -> None:
    done = Step(number=1, tool="restart_service", params={"service": "payments"}, status="done", result="ok")

    actual = await plan("restart payments and check errors after", completed=[done])

    assert [t for t, _ in actual] == ["read_logs"]


REPLANS: list[tuple[str, str, Expected]] = [
    (
        "restart payments and check errors after",
        "not payments, checkout",
        [("restart_service", {"service": "checkout"}), ("read_logs", {"service": "checkout", "level": "error"})],
    ),
    (
        "restart payments and check errors after",
        "use checkout instead of payments",
        [("restart_service", {"service": "checkout"}), ("read_logs", {"service": "checkout"})],
    ),
    (
        "restart payments and check errors after",
        "不是 payments，是 checkout",
        [("restart_service", {"service": "checkout"}), ("read_logs", {"service": "checkout"})],
    ),
    (
        "restart payments and check errors after",
        "don't restart, just check the logs",
        [("read_logs", {"service": "payments", "level": "error"})],
    ),
    ("restart payments and check errors after", "不要重启", [("read_logs", {"service": "payments"})]),
    ("restart payments and check errors after", "skip the log check", [("restart_service", {"service": "payments"})]),
    (
        "restart payments and check errors after",
        "also notify #ops",
        [("restart_service", {}), ("read_logs", {}), ("send_message", {"channel": "#ops"})],
    ),
    (
        "restart payments and check errors after",
        "还要检查延迟",
        [
            ("restart_service", {}),
            ("read_logs", {}),
            ("query_metrics", {"service": "payments", "metric": "latency_p99"}),
        ],
    ),
    (
        "restart payments and check errors after",
        "check latency first",
        [("query_metrics", {"metric": "latency_p99"}), ("restart_service", {}), ("read_logs", {})],
    ),
    (
        "restart payments and check errors after",
        "roll back instead of restarting",
        [("rollback_service", {"service": "payments"}), ("read_logs", {"service": "payments"})],
    ),
    ("deploy payments 2.4.2", "use 2.4.1", [("deploy_service", {"service": "payments", "version": "2.4.1"})]),
    ("restart the service", "payments", [("restart_service", {"service": "payments"})]),
]


@pytest.mark.parametrize(("task", "feedback", "expected"), REPLANS, ids=[f for _, f, _ in REPLANS])
async def test_offline_replan_applies_feedback(task: str, feedback: str, expected: Expected) -> None:
    actual = await plan(task, feedback=[feedback])

    assert matches(actual, expected), actual


async def test_offline_replan_with_unreadable_feedback_says_so() -> None:
    steps = await BRAIN.plan(
        "restart payments", DEMO, feedback=["hmm, not sure"], rejected=[], completed=[], max_steps=10
    )

    assert "Could not tell what to change from “hmm, not sure”" in steps[0].reason


Host = Literal["db1", "db2", "web1"]


@tool(risk=Risk.WRITE)
def resize_disk(host: Host, size_gb: int) -> str:
    """Grow a host's disk."""
    return f"{host}: {size_gb} GB"


@tool(risk=Risk.EXEC)
def reboot_host(host: Host) -> str:
    """Reboot a host."""
    return f"rebooted {host}"


@tool
def page_team(team: Literal["dba", "web"], text: str) -> str:
    """Page an on-call team."""
    return f"paged {team}"


@tool
def uptime(host: Host) -> str:
    """How long a host has been up."""
    return f"{host} up"


OTHER = ToolRegistry()
for _fn in (resize_disk, reboot_host, page_team, uptime):
    OTHER.add_function(_fn)


@pytest.mark.parametrize(
    ("task", "expected"),
    [
        (
            "reboot db1 then resize its disk to 200 gb",
            [("reboot_host", {"host": "db1"}), ("resize_disk", {"host": "db1", "size_gb": 200})],
        ),
        ("page the dba team: disk is full on db2", [("page_team", {"team": "dba", "text": "disk is full on db2"})]),
        ("uptime of web1 and db2", [("uptime", {"host": "web1"}), ("uptime", {"host": "db2"})]),
        ("重启 db2", [("reboot_host", {"host": "db2"})]),
    ],
)
async def test_offline_plan_works_for_any_toolset(task: str, expected: Expected) -> None:
    actual = await plan(task, tools=OTHER)

    assert matches(actual, expected), actual


async def test_offline_plan_with_nothing_to_do_raises_plan_error() -> None:
    with pytest.raises(PlanError, match="Rephrase the task"):
        await plan("what's up", tools=OTHER)


@pytest.mark.parametrize(
    ("text", "clauses"),
    [
        ("restart payments and check errors after", ["restart payments", "check errors"]),
        ("check errors after restarting payments", ["restarting payments", "check errors"]),
        ("重启 payments 然后检查错误日志", ["重启 payments", "检查错误日志"]),
        ("A; B, then C", ["A", "B", "C"]),
        ('tell #ops "done, and all good" then check auth', ['tell #ops "done, and all good"', "check auth"]),
    ],
)
def test_split_clauses_keeps_the_persons_order(text: str, clauses: list[str]) -> None:
    assert split_clauses(text) == clauses


@pytest.mark.parametrize(("text", "number"), [("2", 2), ("二", 2), ("两", 2), ("十", 10), ("十二", 12), ("二十三", 23)])
def test_zh_number_reads_chinese_numerals(text: str, number: int) -> None:
    assert zh_number(text) == number


# --- reviser ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool_name", "params", "feedback", "changed"),
    [
        ("scale_service", {"service": "payments", "replicas": 2}, "use 3 replicas", {"replicas": 3}),
        ("scale_service", {"service": "payments", "replicas": 2}, "副本数改成 6", {"replicas": 6}),
        (
            "deploy_service",
            {"service": "payments", "version": "2.4.2"},
            "wrong version, use v2.5.0",
            {"version": "v2.5.0"},
        ),
        ("restart_service", {"service": "payments"}, "not payments, checkout", {"service": "checkout"}),
        ("restart_service", {"service": "payments"}, "应该是 checkout", {"service": "checkout"}),
        (
            "read_logs",
            {"service": "auth", "level": "all", "limit": 20},
            "only errors, 50 lines",
            {"level": "error", "limit": 50},
        ),
        (
            "send_message",
            {"channel": "#ops", "text": "hi"},
            "post it in #payments-oncall",
            {"channel": "#payments-oncall"},
        ),
    ],
)
async def test_offline_revise_takes_new_values_from_feedback(
    tool_name: str, params: dict[str, Any], feedback: str, changed: dict[str, Any]
) -> None:
    step = Step(number=2, tool=tool_name, params=params, risk=DEMO.get(tool_name).risk)

    new = await BRAIN.revise_step("task", step, DEMO, feedback=feedback, suggested_fix=None)

    assert {k: new[k] for k in changed} == changed
    assert {k: v for k, v in new.items() if k not in changed} == {
        k: v for k, v in DEMO.get(tool_name).validate(params).items() if k not in changed
    }


async def test_offline_revise_without_values_keeps_the_params() -> None:
    step = Step(number=1, tool="restart_service", params={"service": "payments"}, risk=Risk.EXEC)

    new = await BRAIN.revise_step("task", step, DEMO, feedback="第二步参数不对", suggested_fix=None)

    assert new == {"service": "payments"}


# --- classifier -------------------------------------------------------------------

PLAN_STEPS = [
    Step(number=1, tool="restart_service", params={"service": "payments"}, risk=Risk.EXEC),
    Step(number=2, tool="scale_service", params={"service": "payments", "replicas": 2}, risk=Risk.WRITE),
]

CLASSIFY: list[tuple[str, str, str, int | None]] = [
    ("Looks good, proceed", "after_plan", "approve", None),
    ("lgtm", "after_plan", "approve", None),
    ("LGTM 👍", "before_risky_step", "approve", None),
    ("go ahead", "before_risky_step", "approve", None),
    ("ship it", "before_result", "approve", None),
    ("可以，执行吧", "after_plan", "approve", None),
    ("没问题", "before_risky_step", "approve", None),
    ("同意", "after_plan", "approve", None),
    ("no problem, go ahead", "after_plan", "approve", None),
    ("cancel", "after_plan", "cancel", None),
    ("stop this", "before_risky_step", "cancel", None),
    ("取消", "after_plan", "cancel", None),
    ("please abort the run", "before_result", "cancel", None),
    ("make it a table", "before_result", "refine_output", None),
    ("shorter please", "before_result", "refine_output", None),
    ("bullet points", "before_result", "refine_output", None),
    ("fix the format", "before_result", "refine_output", None),
    ("in Chinese", "before_result", "refine_output", None),
    ("give me a summary", "before_result", "refine_output", None),
    ("用表格", "before_result", "refine_output", None),
    ("简短一点", "before_result", "refine_output", None),
    ("格式不对", "before_result", "refine_output", None),
    ("总结一下", "before_result", "refine_output", None),
    ("step 2 should use eu-west-1", "after_plan", "retry_step", 2),
    ("use 3 replicas", "after_plan", "retry_step", 2),
    ("looks good but use 3 replicas", "after_plan", "retry_step", 2),
    ("wrong version", "before_risky_step", "retry_step", 2),
    ("第2步", "after_plan", "retry_step", 2),
    ("第二步参数不对", "after_plan", "retry_step", 2),
    ("the first step is wrong", "after_plan", "retry_step", 1),
    ("参数不对", "before_risky_step", "retry_step", 2),
    ("wrong approach", "after_plan", "replan", None),
    ("do a rollback instead", "after_plan", "replan", None),
    ("I'd rather roll back", "before_risky_step", "replan", None),
    ("try a different plan", "after_plan", "replan", None),
    ("not payments, checkout", "after_plan", "replan", None),
    ("don't restart, just check the logs", "after_plan", "replan", None),
    ("方向不对", "after_plan", "replan", None),
    ("换个方案", "after_plan", "replan", None),
    ("重新规划", "before_risky_step", "replan", None),
    ("skip step 2", "after_plan", "replan", 2),
    ("this is wrong", "before_result", "refine_output", None),
    ("this is wrong", "before_risky_step", "retry_step", 2),
    ("this is wrong", "after_plan", "replan", None),
]


@pytest.mark.parametrize(("text", "anchor", "intent", "target"), CLASSIFY, ids=[f"{c[0]}@{c[1]}" for c in CLASSIFY])
async def test_offline_classify_reads_en_and_zh(text: str, anchor: str, intent: str, target: int | None) -> None:
    gate = 2 if anchor == "before_risky_step" else None
    context = ClassifyContext(task="restart payments and scale it", anchor=anchor, steps=PLAN_STEPS, step=gate)

    reading = await BRAIN.classify(text, context)

    assert (reading.intent, reading.target_step) == (intent, target), reading.reason
    assert reading.confidence > 0


NEGATED = ["not good", "don't proceed", "do not go ahead", "不行", "不可以", "不同意", "不要执行", "no", "nope, not ok"]


@pytest.mark.parametrize("anchor", ["after_plan", "before_risky_step", "after_risky_step", "before_result"])
@pytest.mark.parametrize("text", NEGATED)
def test_offline_classify_negated_approval_never_approves(text: str, anchor: str) -> None:
    reading = classify_text(text, {"anchor": anchor, "step": 1, "steps": []})

    assert reading["intent"] != "approve"


def test_offline_classify_suggests_the_fix() -> None:
    reading = classify_text("step 2 should use eu-west-1", {"anchor": "after_plan", "steps": []})

    assert reading["suggested_fix"] == "eu-west-1"


# --- summary and refinement -----------------------------------------------------------

EXECUTED = [
    Step(
        number=1,
        tool="restart_service",
        params={"service": "payments"},
        risk=Risk.EXEC,
        status="done",
        result="Restarted payments (3 replicas): status degraded → running, error rate 12.0% → 0.20%.",
    ),
    Step(
        number=2,
        tool="read_logs",
        params={"service": "payments", "level": "error"},
        status="done",
        result="payments logs at error level or above, last 2:\n10:00:01 ERROR pool exhausted\n10:00:02 ERROR timeout",
    ),
    Step(number=3, tool="send_message", params={"channel": "#ops", "text": "hi"}, status="failed", error="no channel"),
]
TASK = "restart payments and check errors after"


async def test_offline_summary_shows_every_step_result_and_error() -> None:
    text = await BRAIN.summarize(TASK, EXECUTED, ["ana approved the restart"])

    assert text.startswith(
        "**Finished with problems: restart_service payments, read_logs payments error"
        " and send_message #ops hi failed.**"
    )
    assert "Asked: restart payments and check errors after" in text
    assert "3 steps ran: 2 succeeded, 1 failed." in text
    assert "`restart_service` (service=payments)" in text
    assert "ERROR pool exhausted" in text
    assert "failed: no channel" in text
    assert "ana approved the restart" in text


@pytest.mark.parametrize(
    ("feedback", "visible"),
    [
        ("make it a table", "| # | Tool | Parameters | Outcome |"),
        ("用表格", "| 3 | `send_message` | channel=#ops, text=hi | failed: no channel |"),
        ("shorter please", "1. ✅ `restart_service`: Restarted payments"),
        ("bullet points", "- ✅ `restart_service` (service=payments)"),
        ("in Chinese", "**已结束，有问题: restart_service payments"),
        ("give me a summary", "In short: 3 steps, 1 failed (send_message)."),
        ("给个总结", "简而言之：3 步，1 步失败（send_message）。"),
        ("more emphasis on the errors", "_Revised per feedback: “more emphasis on the errors”._"),
    ],
)
async def test_offline_refine_changes_the_text_visibly(feedback: str, visible: str) -> None:
    original = await BRAIN.summarize(TASK, EXECUTED, [])

    refined = await BRAIN.refine(TASK, original, feedback, EXECUTED)

    assert refined != original
    assert visible in refined
    assert "no channel" in refined  # a failure is never dropped


def test_offline_shorter_is_shorter() -> None:
    views = [step_view(s) for s in EXECUTED]
    original = render_summary(TASK, views, [])

    assert len(apply_refinement(TASK, original, "shorter", views)) < len(original)


NUMBERS = re.compile(r"\d+(?:\.\d+)?%?")


@pytest.mark.parametrize("feedback", ["make it a table", "bullet points", "用表格展示", "more emphasis on the errors"])
def test_offline_refine_keeps_every_number_and_error(feedback: str) -> None:
    views = [step_view(s) for s in EXECUTED]
    original = render_summary(TASK, views, [])
    refined = apply_refinement(TASK, original, feedback, views)
    missing = {n for n in NUMBERS.findall(original)} - {n for n in NUMBERS.findall(refined)}
    assert not missing, f"{feedback!r} dropped {missing}"
    assert "no channel" in refined


@pytest.mark.parametrize("feedback", ["make it shorter", "简短一点"])
def test_offline_shorter_says_what_it_left_out(feedback: str) -> None:
    views = [step_view(s) for s in EXECUTED]
    refined = apply_refinement(TASK, render_summary(TASK, views, []), feedback, views)
    assert "12.0% → 0.20%" in refined, "the headline figures stay"
    assert "Left out: the rest of the output of step 2 (2 lines)" in refined or "省略了步骤 2 的其余输出" in refined


def test_offline_summary_names_what_did_not_run_and_what_changed() -> None:
    steps = [
        Step(
            number=1,
            tool="restart_service",
            params={"service": "checkout"},
            status="done",
            result="Restarted checkout",
            reason="Changed service payments → checkout from your feedback: “checkout, not payments”",
            did="restarted checkout",
        ),
        Step(number=2, tool="read_logs", params={"service": "checkout"}, status="skipped"),
    ]
    text = render_summary("restart payments and check errors after", [step_view(s) for s in steps], [])
    assert text.startswith("**Partly done: restarted checkout.**"), "the title says what ran, in words, not the task"
    assert "Not done:" in text and "2. `read_logs` (service=checkout): skipped" in text
    assert "Changed on the way:" in text and "service payments → checkout" in text
    assert "⏸️" not in text


def test_offline_summary_of_a_chinese_task_is_chinese() -> None:
    views = [step_view(s) for s in EXECUTED]
    text = render_summary("重启 payments 然后查看错误日志", views, [])
    assert (
        text.startswith("**已结束，有问题：运行了 restart_service（payments）")
        and "执行了 3 步：2 步成功，1 步失败。" in text
    )
    assert "In short" not in apply_refinement("重启 payments", text, "给个总结", views)


# --- takeover -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("instruction", "kind"),
    [
        ("finish", "finish"),
        ("we're done", "finish"),
        ("wrap up", "finish"),
        ("完成", "finish"),
        ("结束吧", "finish"),
        ("hand back", "hand_back"),
        ("continue on your own", "hand_back"),
        ("你继续", "hand_back"),
        ("交还给你", "hand_back"),
        ("cancel", "cancel"),
        ("取消", "cancel"),
        ("what now?", "unclear"),
        ("don't finish yet", "unclear"),
    ],
)
async def test_offline_propose_reads_control_words(instruction: str, kind: str) -> None:
    reading = await BRAIN.propose(instruction, TASK, EXECUTED, DEMO)

    assert reading.kind == kind
    assert reading.message


@pytest.mark.parametrize(
    ("instruction", "tool_name", "params"),
    [
        ("restart checkout", "restart_service", {"service": "checkout"}),
        ("check its logs", "read_logs", {"service": "payments"}),
        ("scale to 4 replicas", "scale_service", {"service": "payments", "replicas": 4}),
        ("回滚 search", "rollback_service", {"service": "search"}),
    ],
)
async def test_offline_propose_turns_an_instruction_into_one_step(
    instruction: str, tool_name: str, params: dict[str, Any]
) -> None:
    reading = await BRAIN.propose(instruction, TASK, EXECUTED, DEMO)

    assert reading.kind == "step"
    assert reading.step is not None
    assert reading.step.tool == tool_name
    assert {k: reading.step.params[k] for k in params} == params


async def test_offline_propose_asks_for_a_missing_value() -> None:
    reading = await BRAIN.propose("deploy", TASK, EXECUTED, DEMO)

    assert reading.kind == "unclear"
    assert "version" in reading.message


async def test_offline_propose_several_steps_gives_the_first() -> None:
    reading = await BRAIN.propose("restart auth then check its logs", TASK, [], DEMO)

    assert reading.step is not None
    assert (reading.step.tool, reading.step.params) == ("restart_service", {"service": "auth"})
    assert "one step at a time" in reading.message.lower()


# --- the model itself ------------------------------------------------------------------


async def test_offline_model_answers_json_for_every_purpose() -> None:
    model = OfflineModel()
    contexts: dict[str, dict[str, Any]] = {
        "plan": {"task": "list services", "tools": DEMO.describe()},
        "revise": {"step": {"params": {}}, "tool": DEMO.get("list_services").describe(), "feedback": "x"},
        "summarize": {"task": "t", "steps": [], "notes": []},
        "refine": {"task": "t", "output": "o", "feedback": "f", "steps": []},
        "classify": {"text": "lgtm", "anchor": "after_plan"},
        "propose": {"instruction": "finish", "tools": []},
    }
    for purpose, context in contexts.items():
        request = LLMRequest.model_validate({"purpose": purpose, "messages": [], "context": context})
        answer = await model.complete(request)
        assert isinstance(json.loads(answer), dict), purpose


async def test_offline_model_bug_becomes_llm_error() -> None:
    request = LLMRequest(purpose="plan", messages=[], context={"tools": "not a list of tools", "max_steps": "x"})

    with pytest.raises(LLMError, match="offline model could not answer the plan request"):
        await OfflineModel().complete(request)


@pytest.mark.parametrize("name", [None, "", "offline", " Offline "])
def test_make_model_offline_names_give_the_offline_model(name: str | None) -> None:
    assert isinstance(make_model(name, None), OfflineModel)


def test_make_model_other_names_give_litellm() -> None:
    model = make_model("openai/gpt-4o-mini", "http://127.0.0.1:1/v1")

    assert isinstance(model, LiteLLMModel)
    assert (model.name, model.api_base) == ("openai/gpt-4o-mini", "http://127.0.0.1:1/v1")


@pytest.mark.parametrize(
    ("task", "window"),
    [
        ("confirm window tonight", "tonight"),
        ("confirm window 02:00-03:00", "02:00-03:00"),
        ("confirm window: sunday", "sunday"),
    ],
)
async def test_free_text_param_keeps_the_whole_value(task: str, window: str) -> None:
    from agent.brain import LLMBrain
    from agent.offline import OfflineModel
    from agent.tools import load_tools

    tools = load_tools(["tests.agent.handoff_tools"])
    steps = await LLMBrain(OfflineModel()).plan(task, tools, feedback=[], rejected=[], completed=[], max_steps=10)
    assert steps[0].tool == "confirm_window" and steps[0].params == {"window": window}


async def test_offline_replan_of_a_chinese_task_says_why_in_chinese() -> None:
    steps = await BRAIN.plan("重启 payments 服务", DEMO, feedback=["hmm"], rejected=[], completed=[], max_steps=10)

    assert steps[0].reason == "来自任务：“重启 payments 服务”。（看不出“hmm”要修改什么；请说明服务或步骤。）"


def test_concepts_read_once_within_a_plan_are_the_same_and_not_changed_by_their_reader() -> None:
    fresh = concepts_in("restart payments, then check the logs")
    with reading_once():
        first = concepts_in("restart payments, then check the logs")
        first.clear()  # a reader changing what it got changes nothing for the next one
        assert concepts_in("restart payments, then check the logs") == fresh
    assert fresh and concepts_in("restart payments, then check the logs") == fresh


def _forms(word: str) -> list[str]:
    """A synonym as a person may write it: plural, past, -ing (an "e" dropped), words spaced out, and upper case."""
    if not word.isascii():
        return [word]
    forms = [
        word,
        word + "s",
        word + "ed",
        word + "ing",
        word.upper(),
        word.replace(" ", "   "),
        word.replace(" ", "_"),
    ]
    if word.endswith("e"):
        forms.append(word[:-1] + "ing")
    return forms


@pytest.mark.parametrize("concept", sorted(CONCEPTS))
def test_every_synonym_in_every_form_names_its_concept_where_it_stands(concept: str) -> None:
    # Each concept is ruled out by a plain substring test before its regex runs: no form may be ruled out wrongly.
    for word in CONCEPTS[concept]:
        for form in _forms(word):
            text = f"please {form} now" if form.isascii() else f"请{form}一下"
            found = concepts_in(text)
            assert found.get(concept) == text.lower().replace("_", " ").find(form.lower().replace("_", " ")), (
                concept,
                form,
                found,
            )


def test_a_word_that_only_contains_a_synonym_names_no_concept() -> None:
    assert concepts_in("the prerelease of logstash is uncached") == {}
