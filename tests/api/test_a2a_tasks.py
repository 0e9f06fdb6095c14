"""A run as an A2A task (pure): a tool's question carries its options as data, a failed run says why."""

from __future__ import annotations

from a2a.helpers.proto_helpers import get_data_parts
from a2a.types import TaskState

from agent.models import Handoff, Review, RunState, Step
from agent.policy import SafetyPolicy
from api.a2a.tasks import task

T0 = 1_796_400_000.0


def _run(**fields: object) -> RunState:
    return RunState.model_validate(
        {
            "id": "r1",
            "task": "roll back checkout",
            "requester": "token:ci",
            "created_at": T0,
            "updated_at": T0,
            **fields,
        }
    )


def test_task_waiting_on_a_tools_question_is_input_required_with_its_options_as_data() -> None:
    question = Handoff(prompt="Roll back to v41?", input_type="choice", options=["roll back", "keep v42"])
    state = _run(
        phase="awaiting_review",
        plan=[Step(number=1, tool="human.ask", params={}, reason="ask")],
        pending=Review(id="rv9", anchor="handoff", step=1, created_at=T0, handoff=question, assignees=["U0ALICE"]),
    )

    shown = task(state, SafetyPolicy(), "ctx-1")

    assert shown.status.state == TaskState.TASK_STATE_INPUT_REQUIRED and shown.context_id == "ctx-1"
    assert "Question from step 1: Roll back to v41?" in shown.status.message.parts[0].text
    [data] = get_data_parts(shown.status.message.parts)
    assert data["review_id"] == "rv9" and data["input_type"] == "choice"
    assert data["options"] == ["roll back", "keep v42"] and data["waiting_on"] == ["U0ALICE"]
    assert [c["choice"] for c in data["choices"]] == ["answer", "cancel"]


def test_task_of_a_failed_run_is_failed_and_says_why_without_a_result() -> None:
    shown = task(_run(phase="failed", error="the planner gave up"), SafetyPolicy(), "r1")

    assert shown.status.state == TaskState.TASK_STATE_FAILED
    assert "the planner gave up" in shown.status.message.parts[0].text
    assert list(shown.artifacts) == []
