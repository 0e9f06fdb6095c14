"""What a correction teaches, as the pure machine records it: one lesson per change, each keyed by what it
changed; which lessons a plan reflects; and a forgotten lesson on the run that used it."""

from __future__ import annotations

from typing import Any

import pytest

from agent.lessons import reflected, shaped
from agent.machine import lessons
from agent.models import AddLesson, Learning, Lesson, LessonUse, Notify, PlannedStep, RunState, Step, StepPlace
from agent.prompts import plan_context, plan_request
from agent.tools import load_tools

T0 = 1_800_000_000.0


def _state(task: str = "restart payments and read its logs") -> RunState:
    s = RunState(id="r1", task=task, requester="U1", created_at=T0, updated_at=T0)
    s.learning = Learning(id="abcdef0123456789", anchor="after_plan", intent="replan", text="fix", by="U1", at=T0)
    return s


def _steps(*tools: str, **params: Any) -> list[PlannedStep]:
    return [PlannedStep(tool=t, params={"service": "payments", **params.get(t, {})}, reason="r") for t in tools]


def _lesson(**fields: Any) -> Lesson:
    """A value lesson (payments to 4 replicas) unless ``fields`` say otherwise."""
    base: dict[str, Any] = {"id": "a", "run_id": "r", "scope": "C1", "anchor": "before_risky_step"}
    base |= {"intent": "retry_step", "text": "t", "by": "U1", "created_at": T0, "tool": "scale_service"}
    base |= {"target": {"service": "payments"}, "before": {"replicas": 2}, "after": {"replicas": 4}}
    return Lesson.model_validate(base | fields)


def _taught(effects: list[Any]) -> list[Lesson]:
    return [e.lesson for e in effects if isinstance(e, AddLesson)]


def test_replanned_with_a_step_moved_earlier_records_the_move() -> None:
    taught = _taught(
        lessons.replanned(_state(), _steps("restart_service", "read_logs"), _steps("read_logs", "restart_service"))
    )
    assert [(x.kind, x.moved, x.tool) for x in taught] == [
        ("steps", [StepPlace(tool="read_logs", before="restart_service")], "restart_service")
    ]


def test_replanned_with_two_changes_teaches_two_lessons_with_their_own_ids() -> None:
    old = _steps("scale_service", scale_service={"replicas": 2})
    new = [*_steps("read_logs"), *_steps("scale_service", scale_service={"replicas": 4})]
    taught = _taught(lessons.replanned(_state("scale payments to 2 replicas"), old, new))
    assert [(x.id, x.kind, x.line) for x in taught] == [
        ("abcdef012345", "values", "use replicas=4 (not 2) in `scale_service` for payments"),
        ("abcdef012301", "steps", "run `read_logs` before `scale_service`"),
    ]
    assert taught[0].named == ["replicas"]  # the task had said 2 itself


def test_replanned_with_nothing_changed_teaches_nothing() -> None:
    plan = _steps("restart_service")
    assert lessons.replanned(_state(), plan, plan) == []


def test_replanned_without_a_step_that_already_ran_records_no_removal() -> None:
    s = _state()
    s.history = [Step(number=1, tool="read_logs", params={"service": "payments"}, reason="r", status="done")]
    assert lessons.replanned(s, _steps("read_logs", "restart_service"), _steps("restart_service")) == []


@pytest.mark.parametrize(
    ("first", "second", "same"),
    [
        ({"after": {"replicas": 4}}, {"after": {"replicas": 6}}, True),  # the same value corrected again
        ({"after": {"replicas": 4}}, {"after": {"timeout": 60}}, False),  # another parameter
        ({"after": {"replicas": 4}}, {"after": {"replicas": 4}, "target": {"service": "search"}}, False),
        (
            {"intent": "refine_output", "text": "show it as a table"},
            {"intent": "refine_output", "text": "Table, as a table please"},
            False,
        ),
        (
            {"intent": "refine_output", "text": "show it as a table"},
            {"intent": "refine_output", "text": "show as table"},
            True,
        ),
        (
            {"intent": "refine_output", "text": "read the logs first"},
            {"moved": [{"tool": "read_logs", "before": "restart_service"}]},
            False,
        ),
        (
            {"added": [{"tool": "read_logs", "before": "restart_service"}]},
            {"moved": [{"tool": "read_logs", "before": "restart_service"}]},
            True,
        ),
    ],
)
def test_lesson_key_follows_what_it_changed(first: dict[str, Any], second: dict[str, Any], same: bool) -> None:
    bare = {"before": {}, "after": {}}  # what is not given did not change
    assert (_lesson(**(bare | first)).key == _lesson(**(bare | second)).key) is same


def test_reflected_and_shaped_credit_only_what_the_plan_owes_the_lesson() -> None:
    value = _lesson(id="v")
    move = _lesson(id="m", intent="replan", tool="restart_service", target={}, before={}, after={})
    move = move.model_copy(update={"moved": [StepPlace(tool="read_logs", before="restart_service")]})
    wish = _lesson(id="w", intent="refine_output", tool=None, target={}, before={}, after={}, text="table")
    plan = [("read_logs", {"service": "payments"}), ("restart_service", {"service": "payments"})]
    assert [reflected(x, plan) for x in (value, move, wish)] == [False, True, False]
    scaled = [("scale_service", {"service": "payments", "replicas": 4})]
    assert reflected(value, scaled) and not reflected(value, [("scale_service", {"service": "search", "replicas": 4})])
    assert shaped([value, move], scaled, without=[("scale_service", {"service": "payments", "replicas": 2})]) == [value]
    assert shaped([value], scaled, without=scaled) == []  # the plan had it anyway


def test_forgotten_marks_the_use_and_tells_the_thread_once() -> None:
    s = _state()
    s.lessons_applied = [LessonUse(id="l1", line="use replicas=4", by="U1", at=T0)]
    after, effects = lessons.forgotten(s, "l1", "U2", T0 + 5)
    assert after.lessons_applied[0].forgotten_by == "U2" and s.lessons_applied[0].forgotten_by is None
    assert effects == [
        Notify(text="🧹 ⟦@U2⟧ forgot a lesson: use replicas=4. Later plans start without it; this plan stays as it is.")
    ]
    assert lessons.forgotten(after, "l1", "U3", T0 + 6)[1] == []


def test_plan_prompt_says_the_tasks_own_words_win() -> None:
    lesson = _lesson(named=["replicas"])
    request = plan_request(
        plan_context(
            "scale payments",
            load_tools(["demo.tools"]),
            feedback=[],
            rejected=[],
            completed=[],
            max_steps=5,
            lessons=[lesson],
        )
    )
    prompt = request.messages[-1]["content"]
    assert "the task's own words win" in prompt and '"overrides_task_words": ["replicas"]' in prompt
