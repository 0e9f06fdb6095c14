"""Lessons through the real runtime on a real SQLite file: a correction teaches the next plan, until forgotten."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Literal

import pytest

from agent.brain import LLMBrain
from agent.config import AnchorsRule, LessonsRule, PolicyConfig
from agent.lessons import pick, using
from agent.models import Approve, Lesson, RunState, StepPlace
from agent.offline import OfflineModel
from agent.runtime import Runtime
from agent.tools import Risk, ToolRegistry, load_tools, tool
from agent.usecases import LessonForgotten, NotApplied, Refused, UseCases
from bot.origin import SlackThread
from storage.facade import AsyncStore
from tests.fakes import ScriptedModel

TOOLS = load_tools(["demo.tools"])
ALICE, BOB, CAROL = "U0ALICE", "U0BOB", "U0CAROL"
OPS = SlackThread(channel_id="C0OPS", thread_ts="1.0")
DAY = 86_400.0


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[AsyncStore]:
    async with AsyncStore(tmp_path / "runs.db") as opened:
        yield opened


def usecases(store: AsyncStore, clock: Clock, config: PolicyConfig | None = None) -> UseCases:
    # the corrections these lessons come from are made at a risky step's own gate: keep it apart from the plan's
    apart = (config or PolicyConfig()).model_copy(update={"anchors": AnchorsRule(merge_gate=False)})
    runtime = Runtime(store, LLMBrain(OfflineModel()), TOOLS, clock=clock, config=apart)
    return UseCases(runtime, store)


async def corrected_to_four(uc: UseCases, origin: SlackThread = OPS, by: str = ALICE) -> RunState:
    """Scale payments to 2 replicas, and at the gate say it needs 4."""
    state = await uc.runtime.start("scale payments to 2 replicas", by, origin=origin)
    assert state.pending is not None and state.pending.anchor == "after_plan"
    state = await uc.runtime.decide(state.id, Approve(), by)
    assert state.pending is not None and state.pending.anchor == "before_risky_step"
    _, state = await uc.runtime.say(state.id, "use 4 replicas", by)
    assert state.plan[0].params == {"service": "payments", "replicas": 4}
    return state


async def test_correction_at_the_gate_becomes_a_lesson_with_values_before_and_after(store: AsyncStore) -> None:
    clock = Clock()
    state = await corrected_to_four(usecases(store, clock))
    [lesson] = await store.lessons("C0OPS")
    assert (lesson.run_id, lesson.scope, lesson.anchor, lesson.intent) == (
        state.id,
        "C0OPS",
        "before_risky_step",
        "retry_step",
    )
    assert (lesson.tool, lesson.target, lesson.before, lesson.after) == (
        "scale_service",
        {"service": "payments"},
        {"replicas": 2},
        {"replicas": 4},
    )
    assert (lesson.text, lesson.by, lesson.created_at) == ("use 4 replicas", ALICE, clock.now)
    assert "add_lesson" in [e.kind for e in await store.events(state.id)]


async def test_lesson_changes_the_next_plan_in_the_same_channel_and_is_shown(store: AsyncStore) -> None:
    clock = Clock()
    uc = usecases(store, clock)
    await corrected_to_four(uc)
    clock.now += DAY
    state = await uc.runtime.start("scale payments to 2 replicas", BOB, origin=OPS)
    assert state.plan[0].params == {"service": "payments", "replicas": 4}
    assert "earlier correction" in state.plan[0].reason
    [lesson] = await store.lessons("C0OPS")
    assert [(u.id, u.by) for u in state.lessons_applied] == [(lesson.id, ALICE)]
    assert "replicas=4" in using(state.lessons_applied[0]) and f"⟦@{ALICE}⟧" in using(state.lessons_applied[0])


async def test_lesson_of_another_channel_leaves_the_plan_alone(store: AsyncStore) -> None:
    uc = usecases(store, Clock())
    await corrected_to_four(uc)
    state = await uc.runtime.start(
        "scale payments to 2 replicas", BOB, origin=SlackThread(channel_id="C0DEV", thread_ts="2.0")
    )
    assert state.plan[0].params == {"service": "payments", "replicas": 2} and state.lessons_applied == []


async def test_task_naming_a_value_nobody_corrected_keeps_it(store: AsyncStore) -> None:
    uc = usecases(store, Clock())
    await corrected_to_four(uc)
    state = await uc.runtime.start("scale payments to 7 replicas", BOB, origin=OPS)
    assert state.plan[0].params == {"service": "payments", "replicas": 7}


async def test_replan_correction_teaches_the_step_to_add_before_a_restart(store: AsyncStore) -> None:
    uc = usecases(store, Clock())
    state = await uc.runtime.start("restart payments", ALICE, origin=OPS)
    assert [s.tool for s in state.plan] == ["restart_service"]
    _, state = await uc.runtime.say(state.id, "check the logs first", ALICE)
    assert [s.tool for s in state.plan] == ["read_logs", "restart_service"]
    [lesson] = await store.lessons("C0OPS")
    assert lesson.intent == "replan" and lesson.added == [StepPlace(tool="read_logs", before="restart_service")]
    state = await uc.runtime.start("restart checkout", BOB, origin=OPS)
    assert [(s.tool, s.params["service"]) for s in state.plan] == [
        ("read_logs", "checkout"),
        ("restart_service", "checkout"),
    ]


async def test_forgotten_lesson_is_not_used_next_time(store: AsyncStore) -> None:
    uc = usecases(store, Clock())
    await corrected_to_four(uc)
    [lesson] = await store.lessons("C0OPS")
    outcome = await uc.forget_lesson(lesson.id, ALICE, "C0OPS")
    assert isinstance(outcome, LessonForgotten) and outcome.lesson.id == lesson.id
    state = await uc.runtime.start("scale payments to 2 replicas", BOB, origin=OPS)
    assert state.plan[0].params == {"service": "payments", "replicas": 2} and state.lessons_applied == []
    again = await uc.forget_lesson(lesson.id, ALICE, "C0OPS")
    assert isinstance(again, NotApplied) and again.why == "unknown_lesson"


async def test_forget_is_refused_to_an_outsider_and_allowed_to_the_requester_who_saw_it(store: AsyncStore) -> None:
    clock = Clock()
    uc = usecases(store, clock, PolicyConfig(approvers={"write": [BOB]}))
    await corrected_to_four(uc)
    [lesson] = await store.lessons("C0OPS")
    used = await uc.runtime.start("scale payments to 2 replicas", CAROL, origin=OPS)
    assert [u.id for u in used.lessons_applied] == [lesson.id]
    refused = await uc.forget_lesson(lesson.id, CAROL, "C0OPS")  # not the author, not an approver, no run named
    assert isinstance(refused, Refused) and refused.refusal.users == (ALICE,)
    elsewhere = await uc.forget_lesson(lesson.id, ALICE, "C0DEV")
    assert isinstance(elsewhere, NotApplied)
    assert [x.id for x in await store.lessons("C0OPS")] == [lesson.id]
    outcome = await uc.forget_lesson(lesson.id, CAROL, "C0OPS", run_id=used.id)
    assert isinstance(outcome, LessonForgotten)
    assert "lesson_forgotten" in [e.kind for e in await store.events(used.id)]


async def test_later_correction_of_the_same_value_replaces_the_lesson(store: AsyncStore) -> None:
    clock = Clock()
    uc = usecases(store, clock)
    await corrected_to_four(uc)
    clock.now += 60
    state = await uc.runtime.start("scale payments to 2 replicas", ALICE, origin=OPS)
    assert state.plan[0].params["replicas"] == 4
    state = await uc.runtime.decide(state.id, Approve(), ALICE)
    _, state = await uc.runtime.say(state.id, "use 6 replicas", ALICE)
    [lesson] = await store.lessons("C0OPS")
    assert (lesson.before, lesson.after) == ({"replicas": 4}, {"replicas": 6})
    state = await uc.runtime.start("scale payments up", BOB, origin=OPS)  # the task names no count: the lesson's
    assert state.plan[0].params["replicas"] == 6 and [u.id for u in state.lessons_applied] == [lesson.id]


async def test_lesson_older_than_max_age_is_not_used(store: AsyncStore) -> None:
    clock = Clock()
    uc = usecases(store, clock, PolicyConfig(lessons=LessonsRule(max_age=30 * DAY)))
    await corrected_to_four(uc)
    clock.now += 31 * DAY
    state = await uc.runtime.start("scale payments to 2 replicas", BOB, origin=OPS)
    assert state.plan[0].params["replicas"] == 2 and state.lessons_applied == []


async def test_lessons_turned_off_in_the_policy_are_recorded_but_not_used(store: AsyncStore) -> None:
    uc = usecases(store, Clock(), PolicyConfig(lessons=LessonsRule(enabled=False)))
    await corrected_to_four(uc)
    state = await uc.runtime.start("scale payments to 2 replicas", BOB, origin=OPS)
    assert state.plan[0].params["replicas"] == 2 and len(await store.lessons("C0OPS")) == 1


async def test_correction_that_cannot_apply_teaches_nothing(store: AsyncStore) -> None:
    uc = usecases(store, Clock())
    state = await uc.runtime.start("scale payments to 2 replicas", ALICE, origin=OPS)
    state = await uc.runtime.decide(state.id, Approve(), ALICE)
    _, state = await uc.runtime.say(state.id, "step 1 should use orders", ALICE)
    assert state.pending is not None and state.pending.note is not None and "orders" in state.pending.note
    assert await store.lessons(None) == [] and state.learning is None


def lesson(lesson_id: str, at: float, **fields: object) -> Lesson:
    data: dict[str, object] = {
        "id": lesson_id,
        "run_id": "r",
        "anchor": "after_plan",
        "intent": "replan",
        "text": "t",
        "by": ALICE,
        "created_at": at,
        "tool": "scale_service",
        "after": {"replicas": 4},
    }
    data.update(fields)
    return Lesson.model_validate(data)


@pytest.mark.parametrize(
    ("ages", "expected"),
    [
        ((1, 2), ["a", "b"]),  # the store's order when equally fresh
        ((40, 1), ["b", "a"]),  # a much older first match weighs less than a fresh second one
        ((100, 1), ["b"]),  # past max_age: gone
    ],
)
def test_pick_weighs_lessons_by_rank_and_age(ages: Sequence[int], expected: list[str]) -> None:
    now = 1000 * DAY
    found = [lesson(n, now - age * DAY) for n, age in zip("ab", ages, strict=True)]
    picked = pick(found, "anything", now, LessonsRule(max_age=90 * DAY, half_life=10 * DAY))
    assert [x.id for x in picked] == expected


def test_pick_prefers_a_lesson_about_what_the_task_names() -> None:
    found = [lesson("a", 0.0, target={"service": "search"}), lesson("b", 0.0, target={"service": "payments"})]
    assert [x.id for x in pick(found, "scale payments", 0.0, LessonsRule())] == ["b", "a"]


async def test_plan_prompt_carries_the_lessons_for_a_model() -> None:
    answer = {"steps": [{"tool": "scale_service", "params": {"service": "payments", "replicas": 4}}]}
    model = ScriptedModel(json.dumps(answer))
    learned = lesson(
        "a",
        0.0,
        tool="scale_service",
        target={"service": "payments"},
        before={"replicas": 2},
        after={"replicas": 4},
        text="use 4 replicas for payments",
    )
    steps = await LLMBrain(model).plan(
        "scale payments up", TOOLS, feedback=[], rejected=[], completed=[], max_steps=5, lessons=[learned]
    )
    assert steps[0].params["replicas"] == 4
    [request] = model.requests
    prompt = request.messages[-1]["content"]
    assert "Lessons from earlier corrections" in prompt and '"use": {"replicas": 4}' in prompt
    assert "use 4 replicas for payments" in prompt and "Lessons are corrections" in request.messages[0]["content"]
    bare = ScriptedModel(json.dumps(answer))
    await LLMBrain(bare).plan("scale payments up", TOOLS, feedback=[], rejected=[], completed=[], max_steps=5)
    assert "Lessons from earlier corrections" not in bare.requests[0].messages[-1]["content"]


async def test_correction_of_the_target_itself_is_recorded_but_does_not_redirect_later_plans(store: AsyncStore) -> None:
    uc = usecases(store, Clock())
    state = await uc.runtime.start("restart payments", ALICE, origin=OPS)
    _, state = await uc.runtime.say(state.id, "restart checkout instead of payments", ALICE)
    assert [s.params["service"] for s in state.plan] == ["checkout"]
    [lesson] = await store.lessons("C0OPS")
    assert (lesson.target, lesson.before, lesson.after) == ({}, {"service": "payments"}, {"service": "checkout"})
    state = await uc.runtime.start("restart payments", BOB, origin=OPS)
    assert [s.params["service"] for s in state.plan] == ["payments"]


@tool(risk=Risk.WRITE)
def move_service(service: Literal["payments", "checkout"], region: Literal["us-east-1", "eu-west-1"]) -> str:
    """Move a service to another region."""
    return f"{service} now in {region}"


async def test_preferred_region_from_a_correction_is_used_next_time(store: AsyncStore) -> None:
    tools = ToolRegistry()
    tools.add_function(move_service)
    runtime = Runtime(store, LLMBrain(OfflineModel()), tools, clock=Clock())
    state = await runtime.start("move payments to us-east-1", ALICE, origin=OPS)
    state = await runtime.decide(state.id, Approve(), ALICE)
    _, state = await runtime.say(state.id, "use eu-west-1", ALICE)
    assert state.plan[0].params == {"service": "payments", "region": "eu-west-1"}
    state = await runtime.start("move payments to us-east-1", BOB, origin=OPS)
    assert state.plan[0].params == {"service": "payments", "region": "eu-west-1"}
    other = await runtime.start("move checkout to us-east-1", BOB, origin=OPS)
    assert other.plan[0].params == {"service": "checkout", "region": "us-east-1"}  # another target


async def test_replan_that_moves_a_step_teaches_the_move_and_the_next_plan_reads_first(store: AsyncStore) -> None:
    uc = usecases(store, Clock())
    state = await uc.runtime.start("restart payments and read its logs", ALICE, origin=OPS)
    assert [s.tool for s in state.plan] == ["restart_service", "read_logs"]
    _, state = await uc.runtime.say(state.id, "read the logs first", ALICE)
    assert [s.tool for s in state.plan] == ["read_logs", "restart_service"]
    [lesson] = await store.lessons("C0OPS")
    assert lesson.moved == [StepPlace(tool="read_logs", before="restart_service")] and lesson.added == []
    state = await uc.runtime.start("restart checkout and read its logs", BOB, origin=OPS)
    assert [s.tool for s in state.plan] == ["read_logs", "restart_service"]
    assert [u.id for u in state.lessons_applied] == [lesson.id]


async def test_plan_correction_then_table_wish_in_one_run_keep_both_lessons(store: AsyncStore) -> None:
    uc = usecases(store, Clock())
    state = await uc.runtime.start("restart payments and read its logs", ALICE, origin=OPS)
    _, state = await uc.runtime.say(state.id, "read the logs first", ALICE)
    while state.pending is not None and state.pending.anchor != "before_result":
        state = await uc.runtime.decide(state.id, Approve(), ALICE)
    _, state = await uc.runtime.say(state.id, "show it as a table", ALICE)
    kinds = sorted((x.kind, x.text) for x in await store.lessons("C0OPS"))
    assert kinds == [("presentation", "show it as a table"), ("steps", "read the logs first")]


async def test_task_saying_error_logs_keeps_level_error_and_credits_no_lesson(store: AsyncStore) -> None:
    uc = usecases(store, Clock())
    state = await uc.runtime.start("read payments logs", ALICE, origin=OPS)
    _, state = await uc.runtime.say(state.id, "use level warning", ALICE)
    assert state.plan[0].params["level"] == "warning"
    errors = await uc.runtime.start("read payments error logs", BOB, origin=OPS)
    assert errors.plan[0].params["level"] == "error" and errors.lessons_applied == []
    plain = await uc.runtime.start("read payments logs", BOB, origin=OPS)
    assert plain.plan[0].params["level"] == "warning" and len(plain.lessons_applied) == 1


async def test_lesson_the_task_already_agrees_with_is_not_credited(store: AsyncStore) -> None:
    uc = usecases(store, Clock())
    await corrected_to_four(uc)
    state = await uc.runtime.start("scale payments to 4 replicas", BOB, origin=OPS)
    assert state.plan[0].params["replicas"] == 4 and state.lessons_applied == []


async def test_model_plan_that_ignores_a_lesson_does_not_credit_it(store: AsyncStore) -> None:
    clock = Clock()
    await corrected_to_four(usecases(store, clock))
    answer = {"steps": [{"tool": "scale_service", "params": {"service": "payments", "replicas": 3}, "reason": "r"}]}
    model = ScriptedModel(json.dumps(answer))
    runtime = Runtime(store, LLMBrain(model), TOOLS, clock=clock)
    state = await runtime.start("scale payments to 3 replicas", BOB, origin=OPS)
    assert "overrides_task_words" in model.requests[0].messages[-1]["content"]  # the model was told the lesson
    assert state.plan[0].params["replicas"] == 3 and state.lessons_applied == []


async def test_forget_from_the_run_that_used_it_marks_the_run_and_tells_its_thread(store: AsyncStore) -> None:
    uc = usecases(store, Clock())
    await corrected_to_four(uc)
    [lesson] = await store.lessons("C0OPS")
    used = await uc.runtime.start("scale payments to 2 replicas", BOB, origin=OPS)
    outcome = await uc.forget_lesson(lesson.id, BOB, "C0OPS", run_id=used.id)
    assert isinstance(outcome, LessonForgotten) and outcome.run == used.id
    state, _ = await store.load(used.id)
    assert [(u.id, u.forgotten_by) for u in state.lessons_applied] == [(lesson.id, BOB)]
    assert state.pending is not None and state.pending.anchor == "after_plan"  # the run itself is as it was
    assert "lesson_forgotten" in [e.kind for e in await store.events(used.id)]


async def test_forget_from_a_finished_run_that_used_it_still_marks_the_run(store: AsyncStore) -> None:
    uc = usecases(store, Clock())
    first = await uc.runtime.start("read payments logs", ALICE, origin=OPS)
    _, first = await uc.runtime.say(first.id, "use level warning", ALICE)
    [lesson] = await store.lessons("C0OPS")
    used = await uc.runtime.start("read payments logs", BOB, origin=OPS)
    while used.pending is not None:
        used = await uc.runtime.decide(used.id, Approve(), BOB)
    assert used.status == "done" and [u.id for u in used.lessons_applied] == [lesson.id]
    outcome = await uc.forget_lesson(lesson.id, BOB, "C0OPS", run_id=used.id)
    assert isinstance(outcome, LessonForgotten) and outcome.run == used.id
    state, _ = await store.load(used.id)
    assert state.status == "done" and state.lessons_applied[0].forgotten_by == BOB
