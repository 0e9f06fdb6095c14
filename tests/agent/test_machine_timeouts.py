"""How a step that ran out of time ended, carried from its event onto the step (pure machine)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from pydantic import TypeAdapter

from agent import machine
from agent.models import (
    Approve,
    Correct,
    Decided,
    Event,
    PlanProposed,
    Policy,
    ProposedStep,
    Risk,
    RunState,
    RunStep,
    StepFinished,
    StepRevised,
)
from agent.models.steps import TimeoutOutcome
from agent.views import run_json

_ticks = itertools.count(1)
READS = [
    ProposedStep(tool="check_service", params={"service": "payments"}, reason="see", risk=Risk.READ),
    ProposedStep(tool="read_logs", params={"service": "payments"}, reason="why", risk=Risk.READ),
]


def _at() -> dict[str, Any]:
    n = next(_ticks)
    return {"at": 2000.0 + n, "nonce": f"t{n}"}


def running_first_step() -> RunState:
    state, _ = machine.start("r1", "check payments", "U1", 2000.0, policy=Policy(anchors=frozenset({"before_result"})))
    state, effects = machine.transition(state, PlanProposed(steps=READS, **_at()))
    assert effects == [RunStep(number=1)]
    return state


def decide(state: RunState, decision: Approve | Correct) -> RunState:
    assert state.pending is not None
    state, _ = machine.transition(state, Decided(review_id=state.pending.id, decision=decision, by="U1", **_at()))
    return state


@pytest.mark.parametrize("outcome", ["cancelled", "abandoned"])
def test_step_finished_timed_out_is_carried_onto_the_step_at_a_step_failed_review(outcome: TimeoutOutcome) -> None:
    state = running_first_step()
    error = "Timed out after 30 s."
    event = StepFinished(number=1, ok=False, error=error, timed_out=outcome, **_at())
    state, _ = machine.transition(state, event)
    step = state.step(1)
    assert (step.status, step.error, step.timed_out) == ("failed", error, outcome)
    assert state.pending is not None and state.pending.anchor == "step_failed" and state.pending.step == 1


def test_step_finished_without_a_timeout_leaves_timed_out_unset() -> None:
    state, _ = machine.transition(running_first_step(), StepFinished(number=1, ok=False, error="boom", **_at()))
    assert state.step(1).timed_out is None


def test_step_finished_by_a_retry_replaces_the_earlier_timeout() -> None:
    state = running_first_step()
    state, _ = machine.transition(state, StepFinished(number=1, ok=False, timed_out="abandoned", **_at()))
    state = decide(state, Correct(intent="retry_step", feedback="try again"))
    state, effects = machine.transition(state, StepRevised(number=1, params={"service": "payments"}, **_at()))
    assert effects[-1:] == [RunStep(number=1)] and state.step(1).timed_out == "abandoned"  # until the retry ends
    state, _ = machine.transition(state, StepFinished(number=1, ok=True, result="fine", **_at()))
    assert state.step(1).status == "done" and state.step(1).timed_out is None


def test_continue_anyway_after_an_abandoned_step_runs_the_next_and_keeps_the_record() -> None:
    state = running_first_step()
    state, _ = machine.transition(state, StepFinished(number=1, ok=False, timed_out="abandoned", **_at()))
    state = decide(state, Approve())
    assert state.step(1).timed_out == "abandoned" and state.step(2).status == "running"


def test_step_finished_timed_out_survives_the_event_union_and_the_stored_state() -> None:
    event = StepFinished(number=1, ok=False, error="Timed out after 30 s.", timed_out="abandoned", **_at())
    parsed = TypeAdapter(Event).validate_json(event.model_dump_json())
    assert parsed == event
    state, _ = machine.transition(running_first_step(), event)
    assert RunState.model_validate_json(state.model_dump_json()).step(1).timed_out == "abandoned"


def test_step_finished_with_an_unknown_outcome_is_refused() -> None:
    with pytest.raises(ValueError, match="timed_out"):
        StepFinished.model_validate({"at": 1.0, "number": 1, "ok": False, "timed_out": "maybe"})


def test_run_json_carries_how_a_step_timed_out() -> None:
    state, _ = machine.transition(
        running_first_step(), StepFinished(number=1, ok=False, timed_out="cancelled", **_at())
    )
    steps = run_json(state)["steps"]
    assert [s["timed_out"] for s in steps] == ["cancelled", None]
