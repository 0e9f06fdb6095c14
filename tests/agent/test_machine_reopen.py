"""A run that changed nothing is done without a review; a correction in its thread reopens it (pure machine)."""

from __future__ import annotations

from typing import Any

import pytest

from agent import machine
from agent.errors import InvalidDecision, NeedsClarification
from agent.models import (
    AddLesson,
    AskHuman,
    CancelRequested,
    Correct,
    Finished,
    MakePlan,
    Notify,
    OutputReady,
    PlanProposed,
    Policy,
    ProposeStep,
    Reading,
    RefineOutput,
    Reopened,
    ReviseStep,
    Risk,
    RunState,
    RunStep,
    StepFinished,
    StepRevised,
    Summarize,
)
from agent.policy import REOPEN_WITHIN
from tests.agent.machine_events import at, step

CHECKS = [step("check_service", service="checkout"), step("read_logs", service="checkout")]


def run_on(state: RunState, text: str = "checkout is healthy") -> tuple[RunState, list[Any]]:
    """Carry out the run's work (every step succeeds) until it pauses or ends; return the effects seen."""
    seen: list[Any] = []
    while not state.finished and state.pending is None:
        work = state.inflight
        if isinstance(work, RunStep):
            event: Any = StepFinished(number=work.number, ok=True, result="ok", **at())
        elif isinstance(work, Summarize | RefineOutput):
            event = OutputReady(text=text, **at())
        else:
            raise AssertionError(work)
        state, effects = machine.transition(state, event)
        seen += effects
    return state, seen


def done_check(policy: Policy | None = None) -> RunState:
    state, _ = machine.start("r1", "check checkout health", "U1", 1000.0, policy=policy or Policy())
    state, effects = machine.transition(state, PlanProposed(steps=CHECKS, **at()))
    state, seen = run_on(state)
    assert state.status == "done"
    assert not [e for e in effects + seen if isinstance(e, AskHuman)], "a read-only check asks nobody"
    return state


def reopen(state: RunState, intent: str, text: str, by: str = "U1", **fields: Any) -> tuple[RunState, list[Any]]:
    decision = Correct(intent=intent, feedback=text, target_step=fields.pop("target_step", None))
    return machine.transition(state, Reopened(by=by, decision=decision, **{**at(), **fields}))


def test_read_only_check_is_done_with_no_review_and_says_so() -> None:
    state = done_check()
    assert state.pending is None and state.output == "checkout is healthy"
    assert [s.status for s in state.plan] == ["done", "done"]


def test_presentation_wish_on_done_run_refines_the_result_and_is_done_again() -> None:
    state = done_check()
    state, effects = reopen(state, "refine_output", "show it as a table")
    assert state.status == "executing" and state.phase == "refining"
    assert effects[0] == Notify(text="Reopened by ⟦@U1⟧ to present the result differently: “show it as a table”")
    assert RefineOutput(feedback="show it as a table") in effects
    state, seen = run_on(state, "| service | ok |")
    assert state.status == "done" and state.output == "| service | ok |"
    assert Finished(status="done") in seen and not [e for e in seen if isinstance(e, AskHuman)]
    assert [s.attempts for s in state.plan] == [1, 1], "refining re-runs nothing"
    assert any(isinstance(e, AddLesson) for e in seen), "the correction is learned as usual"
    assert state.retries == 1 and state.feedback[-1].text == "show it as a table"


def test_wrong_direction_on_done_run_replans_and_a_risky_new_plan_is_gated() -> None:
    state = done_check()
    state, effects = reopen(state, "replan", "restart checkout instead")
    assert any(isinstance(e, MakePlan) for e in effects) and state.status == "planning"
    state, effects = machine.transition(
        state, PlanProposed(steps=[step("restart_service", Risk.EXEC, service="checkout")], **at())
    )
    assert state.pending is not None and state.pending.anchor == "after_plan", "a risky plan is reviewed"
    assert [s.number for s in state.plan] == [3], "steps are numbered on from the first plan"
    assert [s.number for s in state.history] == [1, 2]


def test_wrong_value_on_done_run_redoes_that_step_only() -> None:
    state = done_check()
    state, effects = reopen(state, "retry_step", "read the auth logs", target_step=2)
    assert ReviseStep(number=2, feedback="read the auth logs", anchor="before_result") in effects
    state, _ = machine.transition(state, StepRevised(number=2, params={"service": "auth"}, **at()))
    state, _ = run_on(state)
    assert state.status == "done" and [s.attempts for s in state.plan] == [1, 2]


def test_reopened_run_still_counts_toward_the_correction_limit() -> None:
    state = done_check(Policy(max_retries=1))
    state, _ = reopen(state, "refine_output", "shorter")
    state, _ = run_on(state, "checkout: healthy")  # a rework that changed the text (one that did not is not counted)
    state, effects = reopen(state, "refine_output", "shorter still")
    # the correction that hands the run over is its first instruction (a step proposed for approval)
    assert state.status == "human_takeover" and effects[-1] == ProposeStep(instruction="shorter still")
    assert "applied 1 correction; this one would be the 2nd" in (state.takeover_reason or "")


def test_reopened_run_can_still_be_stopped_while_it_works() -> None:
    state = done_check()
    state, _ = reopen(state, "refine_output", "as a table")
    state, effects = machine.transition(state, CancelRequested(by="U1", **at()))
    assert state.status == "cancelled" and effects[-1] == Finished(status="cancelled")


@pytest.mark.parametrize("end", ["cancelled", "failed"])
def test_ended_run_is_not_reopened(end: str) -> None:
    state = done_check().model_copy(update={"phase": end})
    with pytest.raises(InvalidDecision, match=f"is {end}, so a reply does not reopen it"):
        reopen(state, "replan", "try again")


def test_run_that_is_open_again_is_not_reopened_twice() -> None:
    state, _ = reopen(done_check(), "refine_output", "as a table")
    with pytest.raises(InvalidDecision, match="is open again \\(executing\\); reply when it asks or is done"):
        reopen(state, "replan", "check auth")


def test_done_run_past_the_window_is_not_reopened() -> None:
    state = done_check()
    late = {"at": state.updated_at + REOPEN_WITHIN + 1, "nonce": "late"}
    with pytest.raises(InvalidDecision, match="more than a day ago"):
        machine.transition(state, Reopened(by="U1", decision=Correct(intent="replan", feedback="again"), **late))


def test_run_finished_in_takeover_is_not_reopened() -> None:
    state = done_check().model_copy(update={"takeover": True})
    with pytest.raises(InvalidDecision, match="finished by a person in takeover"):
        reopen(state, "replan", "again")


def test_unsure_reading_does_not_reopen() -> None:
    state = done_check()
    shaky = Reading(intent="replan", confidence=0.2)
    with pytest.raises(NeedsClarification):
        reopen(state, "replan", "hmm", reading=shaky)


def test_other_events_on_a_done_run_are_still_refused() -> None:
    state = done_check()
    with pytest.raises(InvalidDecision, match="already done"):
        machine.transition(state, OutputReady(text="late", **at()))
