"""LLMBrain with a scripted model: parsing, validation, one repair round, fallbacks."""

from __future__ import annotations

import json
from typing import Any, Literal

import pytest

from agent.brain import UNREADABLE, LLMBrain, parse_json_object
from agent.errors import LLMError, PlanError, ReviseError
from agent.human import NothingToDo, PlannerQuestion
from agent.models import Risk, Step
from agent.offline import OfflineModel
from agent.ports import ClassifyContext, LLMRequest
from agent.tools import ToolRegistry, tool
from tests.fakes import ScriptedModel

Service = Literal["api", "db"]


@tool(risk=Risk.READ)
def check(service: Service) -> str:
    """Check a service's status."""
    return f"{service} ok"


@tool(risk=Risk.EXEC)
def restart(service: Service) -> str:
    """Restart a service."""
    return f"restarted {service}"


@tool(risk=Risk.WRITE)
def scale(service: Service, replicas: int, drain: bool = True) -> str:
    """Scale a service to a number of replicas."""
    return f"{service} x{replicas}"


TOOLS = ToolRegistry()
for _fn in (check, restart, scale):
    TOOLS.add_function(_fn)


def plan_json(*steps: tuple[str, dict[str, Any]]) -> str:
    return json.dumps({"steps": [{"tool": t, "params": p, "reason": f"{t} it"} for t, p in steps]})


async def make_plan(model: ScriptedModel, *, max_steps: int = 5, feedback: list[str] | None = None) -> Any:
    brain = LLMBrain(model)
    return await brain.plan(
        "restart api and check it", TOOLS, feedback=feedback or [], rejected=[], completed=[], max_steps=max_steps
    )


def step(number: int = 1, tool_name: str = "scale", **params: Any) -> Step:
    return Step(number=number, tool=tool_name, params=params or {"service": "api", "replicas": 2}, risk=Risk.WRITE)


# --- plan -------------------------------------------------------------------------


async def test_plan_valid_answer_returns_proposed_steps_with_risk_and_defaults() -> None:
    model = ScriptedModel(plan_json(("restart", {"service": "api"}), ("scale", {"service": "db", "replicas": 3})))

    steps = await make_plan(model)

    assert [(s.tool, s.risk) for s in steps] == [("restart", Risk.EXEC), ("scale", Risk.WRITE)]
    assert steps[1].params == {"service": "db", "replicas": 3, "drain": True}
    assert steps[0].reason == "restart it"
    assert model.purposes == ["plan"]


async def test_plan_request_carries_tools_task_and_feedback() -> None:
    model = ScriptedModel(plan_json(("restart", {"service": "api"}), ("check", {"service": "api"})))

    await make_plan(model, feedback=["not db, api"])

    request = model.requests[0]
    assert [t["name"] for t in request.context["tools"]] == ["check", "restart", "scale"]
    assert request.context["feedback"] == ["not db, api"]
    assert request.context["max_steps"] == 5
    assert request.messages[0]["role"] == "system"
    assert "ONE JSON object" in request.messages[0]["content"]
    assert '{"steps": [{"tool"' in request.messages[0]["content"]
    assert "not db, api" in request.messages[1]["content"]


@pytest.mark.parametrize(
    "wrapped",
    [
        "```json\n{body}\n```",
        "```\n{body}\n```",
        "Here is the plan:\n```json\n{body}\n```\nLet me know.",
        "Sure! {body} Hope that helps.",
    ],
)
async def test_plan_fenced_or_wrapped_json_is_parsed(wrapped: str) -> None:
    body = plan_json(("check", {"service": "db"}))
    model = ScriptedModel(wrapped.replace("{body}", body))

    steps = await make_plan(model)

    assert [(s.tool, s.params) for s in steps] == [("check", {"service": "db"})]
    assert len(model.requests) == 1


async def test_plan_bare_list_is_accepted() -> None:
    model = ScriptedModel(json.dumps([{"tool": "check", "params": {"service": "api"}}]))

    steps = await make_plan(model)

    assert [s.tool for s in steps] == ["check"]


async def test_plan_bad_json_gets_one_repair_that_succeeds() -> None:
    model = ScriptedModel("I think we should restart api.", plan_json(("restart", {"service": "api"})))

    steps = await make_plan(model)

    assert [s.tool for s in steps] == ["restart"]
    repair = model.requests[1]
    assert repair.purpose == "plan"
    assert repair.messages[-2] == {"role": "assistant", "content": "I think we should restart api."}
    assert "no JSON object" in repair.messages[-1]["content"]
    assert "ONE corrected JSON object" in repair.messages[-1]["content"]


async def test_plan_repair_that_fails_again_raises_plan_error() -> None:
    model = ScriptedModel("not json", '{"steps": "restart api"')

    with pytest.raises(PlanError, match="gave no usable plan"):
        await make_plan(model)
    assert len(model.requests) == 2


async def test_plan_unknown_tool_is_rejected_and_named_in_the_repair() -> None:
    model = ScriptedModel(
        plan_json(("explode", {"service": "api"})),
        plan_json(("explode", {"service": "api"})),
    )

    with pytest.raises(PlanError, match="Unknown tool 'explode'"):
        await make_plan(model)
    assert (
        "step 1: Unknown tool 'explode'. Known tools: check, restart, scale."
        in model.requests[1].messages[-1]["content"]
    )


async def test_plan_invalid_params_are_repaired_with_the_problem_named() -> None:
    model = ScriptedModel(
        plan_json(("check", {"service": "api"}), ("scale", {"service": "web", "replicas": "many"})),
        plan_json(("check", {"service": "api"}), ("scale", {"service": "api", "replicas": 4})),
    )

    steps = await make_plan(model)

    assert steps[1].params["replicas"] == 4
    problem = model.requests[1].messages[-1]["content"]
    assert "step 2: Invalid parameters for tool 'scale'" in problem
    assert "service" in problem and "replicas" in problem


async def test_plan_extra_param_is_rejected() -> None:
    bad = plan_json(("check", {"service": "api", "force": True}))
    model = ScriptedModel(bad, bad)

    with pytest.raises(PlanError, match="Invalid parameters for tool 'check'"):
        await make_plan(model)
    assert "force" in model.requests[1].messages[-1]["content"]


async def test_plan_with_too_many_steps_is_rejected() -> None:
    long = plan_json(*[("check", {"service": "api"})] * 4)
    model = ScriptedModel(long, long)

    with pytest.raises(PlanError, match="4 steps but at most 3 are allowed"):
        await make_plan(model, max_steps=3)
    assert "at most 3" in model.requests[1].messages[-1]["content"]


async def test_plan_with_no_steps_is_rejected() -> None:
    model = ScriptedModel('{"steps": []}', '{"steps": []}')

    with pytest.raises(PlanError, match="no steps"):
        await make_plan(model)


async def test_plan_model_failure_becomes_plan_error() -> None:
    model = ScriptedModel(LLMError("The model 'x' failed: down."))

    with pytest.raises(PlanError, match="No plan could be made. The model 'x' failed"):
        await make_plan(model)


# --- revise -----------------------------------------------------------------------


async def test_revise_returns_merged_validated_params() -> None:
    model = ScriptedModel('{"params": {"replicas": 5}, "reason": "asked for 5"}')

    params = await LLMBrain(model).revise_step(
        "scale api", step(), TOOLS, feedback="use 5 replicas", suggested_fix="replicas=5"
    )

    assert params == {"service": "api", "replicas": 5, "drain": True}
    assert model.requests[0].context["feedback"] == "use 5 replicas"
    assert model.requests[0].context["tool"]["name"] == "scale"


async def test_revise_invalid_params_twice_raises_revise_error() -> None:
    bad = '{"params": {"replicas": "lots"}}'
    model = ScriptedModel(bad, bad)

    with pytest.raises(ReviseError, match=r"step 1 \(scale\).*replicas"):
        await LLMBrain(model).revise_step("scale api", step(), TOOLS, feedback="more", suggested_fix=None)


async def test_revise_missing_params_key_is_repaired() -> None:
    model = ScriptedModel('{"replicas": 5}', '{"params": {"replicas": 6}}')

    params = await LLMBrain(model).revise_step("scale api", step(), TOOLS, feedback="6", suggested_fix=None)

    assert params["replicas"] == 6
    assert "params" in model.requests[1].messages[-1]["content"]


async def test_revise_unknown_tool_raises_revise_error_without_asking() -> None:
    model = ScriptedModel()

    with pytest.raises(ReviseError, match="Unknown tool 'gone'"):
        await LLMBrain(model).revise_step("x", step(tool_name="gone"), TOOLS, feedback="x", suggested_fix=None)
    assert model.requests == []


# --- classify ---------------------------------------------------------------------

CONTEXT = ClassifyContext(task="scale api", anchor="before_risky_step", step=1, steps=[step()])


async def test_classify_offline_reader_certain_asks_no_model() -> None:
    model = ScriptedModel()

    reading = await LLMBrain(model).classify("use 5 replicas", CONTEXT)

    assert (reading.intent, reading.target_step, reading.suggested_fix) == ("retry_step", 1, "5")
    assert reading.confidence >= 0.9 and model.requests == []


async def test_classify_without_reading_first_asks_the_model_but_a_certain_offline_reading_stands() -> None:
    model = ScriptedModel(json.dumps({"intent": "replan", "confidence": 1.0}))

    reading = await LLMBrain(model, read_first=False).classify("use 5 replicas", CONTEXT)

    assert model.purposes == ["classify"]
    assert (reading.intent, reading.target_step, reading.suggested_fix) == ("retry_step", 1, "5")
    assert "the model read replan" in reading.reason


async def test_classify_unsure_offline_asks_the_model_with_the_anchor() -> None:
    answer = {"intent": "retry_step", "target_step": 1, "reason": "replicas", "confidence": 0.8, "suggested_fix": "5"}
    model = ScriptedModel(json.dumps(answer))

    reading = await LLMBrain(model).classify("that is not what I meant", CONTEXT)

    assert (reading.intent, reading.target_step, reading.suggested_fix) == ("retry_step", 1, "5")
    assert model.requests[0].context["anchor"] == "before_risky_step"
    assert "可以，执行吧" in model.requests[0].messages[0]["content"]


async def test_classify_request_names_only_the_readings_possible_at_the_anchor() -> None:
    model = ScriptedModel(json.dumps({"intent": "retry_step", "target_step": 1}))

    await LLMBrain(model).classify("that is not what I meant", CONTEXT)

    enum = model.requests[0].answer_schema["properties"]["intent"]["enum"]  # type: ignore[index]
    assert "refine_output" not in enum and {"approve", "cancel", "replan", "retry_step", "question"} <= set(enum)
    assert "Possible here: approve, cancel, replan, retry_step, question" in model.requests[0].messages[1]["content"]


# At a step gate the offline reader reads "x" as a vague retry_step of the step (confidence 0.3).
@pytest.mark.parametrize(
    ("raw", "intent", "confidence"),
    [
        ({"intent": "Approve", "confidence": 1.7}, "approve", 0.3),  # never taken from a model alone
        ({"intent": "cancel", "confidence": 1.0}, "cancel", 0.3),  # neither is stopping the run
        ({"intent": "replan", "confidence": -1}, "replan", 0.6),  # the offline reader had nothing
        ({"intent": "ask", "confidence": 0.2}, "question", 0.6),  # a question changes nothing
        ({"intent": "retry step", "confidence": 0.1}, "retry_step", 0.9),  # both read the same
        ({"intent": "refine", "confidence": 1.0}, "retry_step", 0.3),  # no output to rework at a gate
        ({"intent": "retry_step", "target_step": 7, "confidence": 1.0}, "retry_step", 0.3),  # no step 7
    ],
)
async def test_classify_confidence_comes_from_evidence_not_the_model(
    raw: dict[str, Any], intent: str, confidence: float
) -> None:
    reading = await LLMBrain(ScriptedModel(json.dumps(raw))).classify("x", CONTEXT)

    assert (reading.intent, reading.confidence) == (intent, confidence)


@pytest.mark.parametrize(
    ("text", "anchor", "model_reads", "offline"),
    [
        ("restart billing instead", "before_risky_step", "replan", "retry_step"),
        ("restart billing instead", "before_risky_step", "question", "retry_step"),
    ],
)
async def test_classify_model_against_a_leaning_offline_reading_is_asked_first_not_taken(
    text: str, anchor: Literal["after_plan", "before_risky_step"], model_reads: str, offline: str
) -> None:
    restart = Step(number=1, tool="restart_service", params={"service": "payments"}, risk=Risk.EXEC)
    context = ClassifyContext(
        task="restart payments", anchor=anchor, step=1 if anchor != "after_plan" else None, steps=[restart]
    )
    reading = await LLMBrain(ScriptedModel(json.dumps({"intent": model_reads}))).classify(text, context)

    assert reading.intent == offline, "the model's other reading never replaces a reading with words behind it"
    assert reading.confidence <= 0.3 and "disagree" in reading.reason  # asked about first, not applied


RESTART = ClassifyContext(
    task="restart api and check it",
    anchor="before_risky_step",
    step=1,
    steps=[step(1, "restart", service="api"), step(2, "check", service="api")],
)


@pytest.mark.parametrize(
    ("text", "anchor", "step_number"),
    [
        ("先别重启，先看日志找到原因再说", "after_plan", None),
        ("Don't restart yet. Check the api error logs first, then ask me again", "before_risky_step", 1),
        ("Don't restart yet. Check the api error logs first, then ask me again", "recovery", 1),
        ("no restart, just check it", "after_plan", None),
    ],
)
async def test_classify_model_reading_impossible_at_the_anchor_never_replaces_the_offline_one(
    text: str, anchor: str, step_number: int | None
) -> None:
    context = RESTART.model_copy(update={"anchor": anchor, "step": step_number})
    offline = await LLMBrain(OfflineModel()).classify(text, context)
    model = ScriptedModel(json.dumps({"intent": "refine_output", "confidence": 1.0}))

    reading = await LLMBrain(model, read_first=False).classify(text, context)

    assert model.purposes == ["classify"]
    assert (reading.intent, reading.target_step, reading.confidence) == (
        offline.intent,
        offline.target_step,
        offline.confidence,
    )
    assert reading.intent == "replan" and "refine_output makes no sense" in reading.reason


async def test_classify_model_retry_with_no_step_at_the_plan_review_is_not_taken() -> None:
    context = RESTART.model_copy(update={"anchor": "after_plan", "step": None})
    model = ScriptedModel(json.dumps({"intent": "retry_step", "target_step": None}))

    reading = await LLMBrain(model).classify("hmm, not like this", context)

    assert reading.intent == "replan" and "no step is under review and none is named" in reading.reason


async def test_classify_model_against_a_sure_offline_correction_leaves_the_correction() -> None:
    context = ClassifyContext(task="scale api", anchor="after_plan", steps=[step()])
    model = ScriptedModel(json.dumps({"intent": "retry_step", "target_step": 1, "confidence": 1.0}))

    reading = await LLMBrain(model).classify("rethink this", context)

    assert reading.intent == "replan" and reading.confidence >= 0.5
    assert "the model read retry_step" in reading.reason


@pytest.mark.parametrize("intent", ["cancel", "approve"])
async def test_classify_model_stop_or_go_against_a_sure_offline_correction_takes_the_correction(intent: str) -> None:
    context = ClassifyContext(task="restart api and check it", anchor="after_plan", steps=[step(1, "restart")])
    model = ScriptedModel(json.dumps({"intent": intent, "target_step": None, "confidence": 1.0}))

    reading = await LLMBrain(model).classify("don't restart, just check it", context)

    assert reading.intent == "replan" and reading.confidence >= 0.5
    assert f"the model read {intent}" in reading.reason


async def test_classify_model_correction_against_an_offline_approval_asks_first() -> None:
    context = RESTART.model_copy(update={"anchor": "after_plan", "step": None})
    text = "lgtm, retry if it fails"
    offline = await LLMBrain(OfflineModel()).classify(text, context)
    model = ScriptedModel(json.dumps({"intent": "replan", "confidence": 1.0}))

    reading = await LLMBrain(model).classify(text, context)

    assert offline.intent == "approve" and offline.confidence >= 0.5
    assert reading.intent == "approve" and reading.confidence < 0.5  # asked about, never applied as it stands


@pytest.mark.parametrize(
    "text",
    [
        "cancel",
        "取消吧",
        "don't restart, scale it instead",
        "restart db, not api",
        "先别重启，先看日志",
        "ok but use 5 replicas",
        "why restart it?",
        "nope",
    ],
)
@pytest.mark.parametrize("answer", ["approve", "cancel", "replan", "retry_step", "refine_output", "question"])
@pytest.mark.parametrize("anchor", ["after_plan", "before_risky_step", "before_result"])
async def test_classify_no_scripted_model_turns_a_correction_or_cancel_into_an_approval(
    text: str, answer: str, anchor: str
) -> None:
    context = RESTART.model_copy(update={"anchor": anchor, "step": 1 if anchor == "before_risky_step" else None})
    model = ScriptedModel(json.dumps({"intent": answer, "target_step": 1, "confidence": 1.0}))

    offline = await LLMBrain(OfflineModel()).classify(text, context)
    reading = await LLMBrain(model, read_first=False).classify(text, context)

    assert offline.intent != "approve"
    assert reading.intent != "approve" or reading.confidence < 0.5  # an approval here is only ever asked about
    if offline.confidence >= 0.5:
        assert reading.intent == offline.intent  # the offline reader's sure reading stands, or the model agrees
        assert offline.target_step is None or reading.target_step == offline.target_step


async def test_classify_garbage_twice_leaves_the_offline_reading() -> None:
    model = ScriptedModel("approve!!", '{"intent": "maybe"}')

    reading = await LLMBrain(model).classify("x", CONTEXT)

    assert (reading.intent, reading.target_step, reading.confidence) == ("retry_step", 1, 0.3)
    assert UNREADABLE in reading.reason
    assert len(model.requests) == 2


async def test_classify_model_failure_leaves_the_offline_reading_without_raising() -> None:
    model = ScriptedModel(LLMError("provider down"))

    reading = await LLMBrain(model).classify("that is not what I meant", CONTEXT)

    assert (reading.intent, reading.confidence) == ("retry_step", 0.45)


# --- summarize / refine -------------------------------------------------------------

DONE = [
    Step(number=1, tool="restart", params={"service": "api"}, status="done", result="restarted api"),
    Step(number=2, tool="check", params={"service": "api"}, status="failed", error="api is down"),
]


async def test_summarize_returns_the_model_text() -> None:
    model = ScriptedModel('{"text": "  Restarted api; it is still down.  "}')

    text = await LLMBrain(model).summarize("restart api", DONE, ["ana approved"])

    assert text == "Restarted api; it is still down."
    assert model.requests[0].context["steps"][0]["result"] == "restarted api"
    assert model.requests[0].context["notes"] == ["ana approved"]


@pytest.mark.parametrize("answers", [("nope", '{"txt": ""}'), (LLMError("down"),)])
async def test_summarize_falls_back_to_plain_text_with_every_result(answers: tuple[Any, ...]) -> None:
    text = await LLMBrain(ScriptedModel(*answers)).summarize("restart api", DONE, [])

    assert "restarted api" in text
    assert "api is down" in text
    assert "Written without the model" in text


TABLE = "| step | result |\n| --- | --- |\n| restart | restarted api |"


async def test_refine_returns_the_model_text() -> None:
    model = ScriptedModel(json.dumps({"text": TABLE}))

    text = await LLMBrain(model).refine("restart api", "Restarted api.", "as a table", DONE)

    assert text == TABLE
    assert model.requests[0].context["output"] == "Restarted api."


COUNTED = [
    Step(number=1, tool="read_logs", params={"service": "api"}, status="done", result="1204 errors, p99 4.7 s"),
    Step(number=2, tool="restart", params={"service": "api"}, status="failed", error="exit 137 at 14:02:11"),
]


async def test_refine_that_drops_a_number_is_sent_back_naming_it() -> None:
    kept = "Logs: 1204 errors (p99 4.7 s). The restart failed: exit 137 at 14:02:11."
    model = ScriptedModel('{"text": "Logs had errors; the restart failed."}', json.dumps({"text": kept}))

    text = await LLMBrain(model).refine("look then restart api", "…", "make it prose", COUNTED)

    assert text == kept
    repair = json.dumps(model.requests[1].context, ensure_ascii=False)
    assert "1204" in repair and "14:02:11" in repair


async def test_refine_that_keeps_dropping_numbers_falls_back_to_the_offline_rework() -> None:
    model = ScriptedModel('{"text": "All fine."}', '{"text": "Still fine."}')

    text = await LLMBrain(model).refine("look then restart api", "…", "make it prose", COUNTED)

    for fact in ("1204", "4.7", "137", "14:02:11"):
        assert fact in text
    assert "Reworked without the model" in text


async def test_refine_shorter_may_leave_numbers_out_when_it_says_so() -> None:
    short = "The restart failed (exit details left out; see the full result above)."
    model = ScriptedModel(json.dumps({"text": short}))

    assert await LLMBrain(model).refine("look then restart api", "…", "make it shorter", COUNTED) == short


async def test_refine_asked_for_a_table_without_one_is_sent_back() -> None:
    model = ScriptedModel('{"text": "restart: restarted api"}', json.dumps({"text": TABLE}))

    assert await LLMBrain(model).refine("restart api", "…", "用表格展示", DONE) == TABLE
    assert len(model.requests) == 2


async def test_refine_failure_keeps_the_result_and_applies_the_feedback_plainly() -> None:
    text = await LLMBrain(ScriptedModel(LLMError("down"))).refine("restart api", "*Done*\nall fine", "as a table", DONE)

    assert "| # | Tool | Parameters | Outcome |" in text
    assert "api is down" in text
    assert "Reworked without the model" in text


# --- propose ------------------------------------------------------------------------


async def test_propose_step_is_validated_with_defaults() -> None:
    answer = {"kind": "step", "step": {"tool": "scale", "params": {"service": "db", "replicas": 2}}, "message": ""}

    reading = await LLMBrain(ScriptedModel(json.dumps(answer))).propose("scale db to 2", "x", [], TOOLS)

    assert reading.kind == "step"
    assert reading.step is not None
    assert reading.step.params == {"service": "db", "replicas": 2, "drain": True}


@pytest.mark.parametrize("kind", ["finish", "hand_back", "cancel"])
async def test_propose_control_words_pass_through(kind: str) -> None:
    reading = await LLMBrain(ScriptedModel(json.dumps({"kind": kind, "message": "ok"}))).propose("x", "x", [], TOOLS)

    assert (reading.kind, reading.step) == (kind, None)


async def test_propose_unknown_tool_twice_is_unclear_with_advice() -> None:
    bad = json.dumps({"kind": "step", "step": {"tool": "explode", "params": {}}})
    model = ScriptedModel(bad, bad)

    reading = await LLMBrain(model).propose("blow it up", "x", [], TOOLS)

    assert reading.kind == "unclear"
    assert "blow it up" in reading.message
    assert "Unknown tool 'explode'" in reading.message
    assert "finish" in reading.message


async def test_propose_model_failure_is_unclear() -> None:
    reading = await LLMBrain(ScriptedModel(LLMError("down"))).propose("restart api", "x", [], TOOLS)

    assert reading.kind == "unclear"


# --- helpers ------------------------------------------------------------------------


def test_parse_json_object_rejects_a_string() -> None:
    from agent.brain import Unusable

    with pytest.raises(Unusable, match="expected one JSON object, got str"):
        parse_json_object('"hello"')


async def test_scripted_model_answers_callables_and_records() -> None:
    model = ScriptedModel(lambda request: request.purpose.upper())

    answer = await model.complete(LLMRequest(purpose="plan", messages=[]))

    assert answer == "PLAN"
    assert model.remaining == 0
    assert len(model.requests) == 1


async def test_summary_whose_text_contains_code_fences_is_read_as_json() -> None:
    from agent.brain import LLMBrain
    from agent.models import Step
    from tests.fakes.scripted import ScriptedModel

    answer = '{"text": "Restarted.\\n```\\nlog line\\n```\\nAll good."}'
    brain = LLMBrain(ScriptedModel(answer))
    text = await brain.summarize("t", [Step(number=1, tool="look", status="done", result="ok")], [])
    assert text == "Restarted.\n```\nlog line\n```\nAll good."


async def test_plan_with_no_steps_and_a_question_asks_and_says_what_the_tools_can_do() -> None:
    model = ScriptedModel(json.dumps({"steps": [], "question": "Which service is down?", "confidence": 0.1}))
    brain = LLMBrain(model)
    with pytest.raises(PlannerQuestion) as asked:
        await brain.plan("something is down", TOOLS, feedback=[], rejected=[], completed=[], max_steps=5, ask_below=0.5)
    text = asked.value.question
    assert text.startswith("Which service is down?")
    assert "What I can do here: check, restart, scale — for service: api, db." in text, "a line, not docstrings"
    assert "Restart a service." not in text


@pytest.mark.parametrize(
    "answer",
    [
        json.dumps({"steps": []}),
        json.dumps({"steps": [], "unable": "ordering food is not an ops task"}),
        json.dumps({"steps": [], "question": "What should I order?", "confidence": 0.1}),
        "I'm sorry, I can't help with ordering pizza.",
    ],
)
async def test_plan_of_a_task_no_tool_can_do_ends_with_what_the_tools_can_do(answer: str) -> None:
    model = ScriptedModel(answer)
    with pytest.raises(NothingToDo) as none:
        await LLMBrain(model).plan(
            "order pizza", TOOLS, feedback=[], rejected=[], completed=[], max_steps=5, ask_below=0.5
        )
    assert none.value.reason.startswith("No tool here can do “order pizza”")
    assert none.value.reason.endswith("What I can do here: check, restart, scale — for service: api, db.")
    assert len(model.requests) == 1, "no repair round, no question to a person"


async def test_empty_plan_of_an_ops_task_is_not_taken_as_nothing_to_do() -> None:
    model = ScriptedModel(json.dumps({"steps": [], "unable": "no idea"}), json.dumps({"steps": []}))
    with pytest.raises(PlanError, match="no steps"):
        await make_plan(model)


async def test_unsure_plan_with_steps_asks_without_the_tool_list() -> None:
    answer = {"steps": [{"tool": "check", "params": {"service": "api"}, "reason": "r"}], "question": "Which one?"}
    model = ScriptedModel(json.dumps({**answer, "confidence": 0.1}))
    with pytest.raises(PlannerQuestion) as asked:
        await LLMBrain(model).plan("look", TOOLS, feedback=[], rejected=[], completed=[], max_steps=5, ask_below=0.5)
    assert asked.value.question == "Which one?"


@pytest.mark.parametrize("service", ["api", "db-2"])
async def test_model_takeover_step_on_another_target_than_the_named_one_is_refused_naming_it(service: str) -> None:
    answer = {"kind": "step", "step": {"tool": "check", "params": {"service": service}, "reason": "asked"}}
    model = ScriptedModel(json.dumps(answer))
    reading = await LLMBrain(model).propose("check disk usage on db-2", "t", [], TOOLS)
    assert reading.kind == "unclear" and reading.step is None
    assert reading.message == "There is no service `db-2`. Known: api, db. Nothing was proposed."


async def test_model_takeover_unclear_answer_says_what_the_tools_can_do() -> None:
    model = ScriptedModel(json.dumps({"kind": "unclear", "message": "I cannot order food."}))
    reading = await LLMBrain(model).propose("order pizza", "t", [], TOOLS)
    assert reading.message == "I cannot order food. What I can do here: check, restart, scale — for service: api, db."


async def test_model_takeover_cancel_reply_cancels_without_asking_the_model() -> None:
    model = ScriptedModel()
    reading = await LLMBrain(model).propose("just cancel this", "t", [], TOOLS)
    assert reading.kind == "cancel" and model.requests == []
