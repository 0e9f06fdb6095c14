"""The pure state machine: no event loop, no mocks, no I/O."""

from __future__ import annotations

import random
from typing import Any

import pytest

from agent import machine
from agent.errors import InvalidDecision
from agent.models import (
    Approve,
    AskHuman,
    Cancel,
    CancelRequested,
    CloseReview,
    Correct,
    Decided,
    Decision,
    Effect,
    Finish,
    Finished,
    HandBack,
    Instruct,
    MakePlan,
    Notify,
    OutputReady,
    PlanDeclined,
    PlanFailed,
    PlanProposed,
    Policy,
    ProposedStep,
    ProposeStep,
    Recovered,
    RefineOutput,
    ReviseStep,
    Risk,
    RunState,
    RunStep,
    StepFinished,
    StepProposedEvent,
    StepRevised,
    Summarize,
)
from tests.agent.machine_events import at, step

READS = [step("check_service", service="payments"), step("read_logs", service="payments"), step("list_services")]
REVIEWED = Policy(dynamic_anchors=False)
"""Pauses at every configured anchor whatever the plan: for tests of what happens at a review."""
RISKY = [
    step("check_service", service="payments"),
    step("restart_service", Risk.EXEC, service="payments"),
    step("read_logs", service="payments", level="error"),
]


SEEDS = Policy(after_risky_step="any_follows")  # every risky step's outcome stops the run, as it first did


def new(policy: Policy | None = None) -> RunState:
    state, effects = machine.start("r1", "restart payments", "U1", 1000.0, policy=policy or Policy())
    assert effects == [MakePlan()]
    return state


def planned(steps: list[ProposedStep], policy: Policy | None = None) -> tuple[RunState, list[Effect]]:
    return machine.transition(new(policy), PlanProposed(steps=steps, **at()))


def decide(state: RunState, decision: Decision, by: str = "U1") -> tuple[RunState, list[Effect]]:
    """Decide the pending review; when that closes it, check the machine said so (answered by ``by``)
    and return the other effects."""
    assert state.pending is not None, "no pending review"
    review = state.pending.id
    new, effects = machine.transition(state, Decided(review_id=review, decision=decision, by=by, **at()))
    closes = [e for e in effects if isinstance(e, CloseReview)]
    if new.pending is None or new.pending.id != review:
        assert closes == [CloseReview(review_id=review, by=by, answer=decision.model_dump(mode="json"))], effects
    else:
        assert closes == [], effects
    return new, [e for e in effects if not isinstance(e, CloseReview)]


def finish_step(state: RunState, ok: bool = True, result: Any = "fine") -> tuple[RunState, list[Effect]]:
    assert isinstance(state.inflight, RunStep), state.inflight
    n = state.inflight.number
    return machine.transition(
        state, StepFinished(number=n, ok=ok, result=result if ok else None, error=None if ok else "boom", **at())
    )


def output(state: RunState, text: str = "all good") -> tuple[RunState, list[Effect]]:
    return machine.transition(state, OutputReady(text=text, **at()))


def anchor(state: RunState) -> str | None:
    return state.pending.anchor if state.pending else None


def test_start_new_run_asks_for_a_plan() -> None:
    state = new()
    assert state.status == "planning"
    assert isinstance(state.inflight, MakePlan)


def test_plan_three_read_steps_pauses_after_plan_when_anchors_are_fixed() -> None:
    state, effects = planned(READS, REVIEWED)
    assert anchor(state) == "after_plan"
    assert state.status == "awaiting_review"
    assert isinstance(effects[0], AskHuman) and effects[0].review.id == state.pending.id  # type: ignore[union-attr]


@pytest.mark.parametrize("count", [1, 2, 3])
def test_plan_of_read_steps_runs_without_plan_review(count: int) -> None:
    state, effects = planned(READS[:count])
    assert state.pending is None
    assert effects == [RunStep(number=1)]
    assert state.anchors == frozenset()


def test_read_only_run_is_done_without_any_review() -> None:
    state, _ = planned(READS)
    asked = []
    while not state.finished:
        if isinstance(state.inflight, RunStep):
            state, effects = finish_step(state)
        else:
            assert isinstance(state.inflight, Summarize), state.inflight
            state, effects = output(state, "all healthy")
        asked += [e for e in effects if isinstance(e, AskHuman)]
    assert asked == []
    assert state.status == "done" and state.output == "all healthy"
    assert [s.status for s in state.plan] == ["done", "done", "done"]


def test_plan_with_risky_step_keeps_every_anchor() -> None:
    state, _ = planned(RISKY)
    assert state.anchors == {"after_plan", "after_risky_step", "before_result"}


def test_dynamic_anchors_off_uses_configured_anchors() -> None:
    state, _ = planned(READS[:1], Policy(dynamic_anchors=False))
    assert anchor(state) == "after_plan"


def test_happy_path_risky_plan_walks_all_anchors_to_done() -> None:
    state, _ = planned(RISKY, SEEDS)
    state, effects = decide(state, Approve())
    assert effects == [RunStep(number=1)]
    state, effects = finish_step(state)
    assert anchor(state) == "before_risky_step" and state.pending.step == 2  # type: ignore[union-attr]
    assert state.pending.digest == state.step(2).digest  # type: ignore[union-attr]
    state, effects = decide(state, Approve(), by="U2")
    assert effects == [RunStep(number=2)]
    assert state.step(2).approved_by == "U2"
    state, _ = finish_step(state)
    assert anchor(state) == "after_risky_step"
    state, effects = decide(state, Approve())
    assert effects == [RunStep(number=3)]
    state, effects = finish_step(state)
    assert effects == [Summarize()]
    state, _ = output(state)
    assert anchor(state) == "before_result"
    state, effects = decide(state, Approve())
    assert state.status == "done"
    assert effects == [Finished(status="done")]
    assert [s.status for s in state.plan] == ["done", "done", "done"]


def test_risky_step_last_skips_after_risky_anchor() -> None:
    state, _ = planned([RISKY[0], RISKY[2], RISKY[1]])
    state, _ = decide(state, Approve())
    state, _ = finish_step(state)
    state, _ = finish_step(state)
    assert anchor(state) == "before_risky_step"
    state, _ = decide(state, Approve())
    state, effects = finish_step(state)
    assert effects == [Summarize()]


def test_replan_at_plan_review_asks_planner_with_rejected_plan() -> None:
    state, _ = planned(READS, REVIEWED)
    state, effects = decide(state, Correct(intent="replan", feedback="checkout, not payments"))
    assert effects == [MakePlan(anchor="after_plan")]
    assert state.phase == "replanning" and state.status == "planning"
    assert state.retries == 1
    assert [p.tool for p in state.rejected_plans[-1]] == [s.tool for s in READS]
    state, _ = machine.transition(state, PlanProposed(steps=[step("check_service", service="checkout")] * 3, **at()))
    assert anchor(state) == "after_plan"
    assert state.feedback[-1].text == "checkout, not payments"


def test_retry_step_at_plan_review_revises_without_running() -> None:
    state, _ = planned(READS, REVIEWED)
    state, effects = decide(state, Correct(intent="retry_step", target_step=2, feedback="errors only"))
    assert effects == [ReviseStep(number=2, feedback="errors only", anchor="after_plan")]
    state, effects = machine.transition(
        state, StepRevised(number=2, params={"service": "payments", "level": "error"}, **at())
    )
    assert anchor(state) == "after_plan"
    assert not any(isinstance(e, RunStep) for e in effects)
    assert state.step(2).params["level"] == "error"
    assert all(s.status == "pending" for s in state.plan)
    assert state.step(2).reason == "Changed level → error from your feedback: “errors only”", "the reason follows"


def _to_result(steps: list[ProposedStep], policy: Policy = REVIEWED) -> RunState:
    state, _ = planned(steps, policy)
    while True:
        if anchor(state) is not None:
            if anchor(state) == "before_result":
                return state
            state, _ = decide(state, Approve())
        elif isinstance(state.inflight, RunStep):
            state, _ = finish_step(state)
        elif isinstance(state.inflight, Summarize):
            state, _ = output(state)
        else:
            raise AssertionError(state.inflight)


def test_retry_step_at_result_reruns_only_that_step() -> None:
    state = _to_result(READS)
    state, effects = decide(state, Correct(intent="retry_step", target_step=2, feedback="only errors"))
    assert effects == [ReviseStep(number=2, feedback="only errors", anchor="before_result")]
    state, effects = machine.transition(state, StepRevised(number=2, params={"service": "payments"}, **at()))
    assert effects == [RunStep(number=2)]  # the same values again: the correction changed nothing, taught nothing
    assert state.step(1).attempts == 1 and state.step(3).attempts == 1
    state, effects = finish_step(state)
    assert effects == [Summarize()]
    state, _ = output(state, "new output")
    assert anchor(state) == "before_result" and state.output == "new output"


def test_refine_output_reexecutes_nothing() -> None:
    state = _to_result(READS)
    state, effects = decide(state, Correct(intent="refine_output", feedback="as a table"))
    assert effects == [RefineOutput(feedback="as a table")]
    state, _ = output(state, "| table |")
    assert anchor(state) == "before_result"
    assert [s.attempts for s in state.plan] == [1, 1, 1]


def test_fourth_correction_hands_over_to_a_person() -> None:
    state = _to_result(READS)
    for i in range(3):
        state, _ = decide(state, Correct(intent="refine_output", feedback=f"try {i}"))
        state, _ = output(state, f"v{i}")
    assert state.retries == 3
    state, effects = decide(state, Correct(intent="refine_output", feedback="still wrong"))
    assert state.status == "human_takeover"
    assert "applied 3 corrections; this one would be the 4th" in (state.takeover_reason or "")
    assert effects[-1] == ProposeStep(instruction="still wrong"), "the 4th correction is the first instruction"
    assert "applied 3 corrections" in effects[0].text and "“still wrong” is the first instruction" in effects[0].text  # type: ignore[union-attr]


def test_two_unsatisfying_retries_of_one_step_escalate_to_replan() -> None:
    state = _to_result(READS)
    for _ in range(2):
        state, effects = decide(state, Correct(intent="retry_step", target_step=1, feedback="wrong service"))
        assert isinstance(effects[0], ReviseStep)
        state, _ = machine.transition(state, StepRevised(number=1, params={"service": "auth"}, **at()))
        state, _ = finish_step(state)
        state, _ = output(state)
    state, effects = decide(state, Correct(intent="retry_step", target_step=1, feedback="still wrong"))
    assert MakePlan() in effects
    assert state.phase == "replanning"


def test_two_failed_reruns_of_one_step_replan_automatically() -> None:
    state = _to_result(READS)
    state, _ = decide(state, Correct(intent="retry_step", target_step=1, feedback="use auth"))
    state, _ = machine.transition(state, StepRevised(number=1, params={"service": "auth"}, **at()))
    state, _ = finish_step(state, ok=False)
    assert anchor(state) == "step_failed"
    state, _ = decide(state, Correct(intent="retry_step", target_step=1, feedback="use search"))
    state, _ = machine.transition(state, StepRevised(number=1, params={"service": "search"}, **at()))
    state, effects = finish_step(state, ok=False)
    assert MakePlan() in effects and state.pending is None


def test_step_failure_pauses_and_continue_anyway_runs_next() -> None:
    state, _ = planned(READS, REVIEWED)
    state, _ = decide(state, Approve())
    state, _ = finish_step(state, ok=False)
    assert anchor(state) == "step_failed" and state.step(1).error == "boom"
    state, effects = decide(state, Approve())
    assert effects == [RunStep(number=2)]
    assert state.step(1).status == "failed"


def test_revised_risky_step_needs_a_fresh_approval() -> None:
    state, _ = planned(RISKY, SEEDS)
    state, _ = decide(state, Approve())
    state, _ = finish_step(state)
    state, _ = decide(state, Approve())
    state, _ = finish_step(state)
    assert anchor(state) == "after_risky_step"
    state, _ = decide(state, Correct(intent="retry_step", feedback="restart checkout instead"))
    state, effects = machine.transition(state, StepRevised(number=2, params={"service": "checkout"}, **at()))
    assert anchor(state) == "before_risky_step"
    assert not any(isinstance(e, RunStep) for e in effects)
    state, effects = decide(state, Approve())
    assert effects == [RunStep(number=2)]
    state, _ = finish_step(state)
    assert anchor(state) == "after_risky_step"


def test_gate_rejection_revises_and_asks_again() -> None:
    state, _ = planned(RISKY)
    state, _ = decide(state, Approve())
    state, _ = finish_step(state)
    first = state.pending
    state, effects = decide(state, Correct(intent="retry_step", feedback="restart checkout"))
    assert effects == [ReviseStep(number=2, feedback="restart checkout", anchor="before_risky_step", review_step=2)]
    state, _ = machine.transition(state, StepRevised(number=2, params={"service": "checkout"}, **at()))
    assert anchor(state) == "before_risky_step"
    assert state.pending.digest != first.digest  # type: ignore[union-attr]


def _random_walk(seed: int) -> list[tuple[RunState, list[Effect]]]:
    rng = random.Random(seed)
    policy = Policy(max_retries=rng.choice([1, 3]), max_steps=rng.choice([4, 10]))
    steps = rng.sample(
        RISKY + [step("deploy_service", Risk.DEPLOY, service="auth", version="1.2")], k=rng.randint(1, 4)
    )
    trace = []
    state, effects = planned(steps, policy)
    trace.append((state, effects))
    for _ in range(40):
        if state.finished:
            break
        if anchor(state) is not None:
            options: list[Decision] = [
                Approve(),
                Approve(),
                Correct(intent="retry_step", feedback="change it"),
                Correct(intent="replan", feedback="other way"),
                Correct(intent="refine_output", feedback="shorter"),
            ]
            if state.takeover:
                options = [Instruct(text="restart auth"), Approve(), HandBack(), Finish()]
            state, effects = decide(state, rng.choice(options))
        elif isinstance(state.inflight, RunStep):
            state, effects = finish_step(state, ok=rng.random() > 0.2)
        elif isinstance(state.inflight, ReviseStep):
            n = state.inflight.number
            params = {**state.step(n).params, "service": rng.choice(["auth", "search"])}
            state, effects = machine.transition(state, StepRevised(number=n, params=params, **at()))
        elif isinstance(state.inflight, MakePlan):
            state, effects = machine.transition(state, PlanProposed(steps=rng.sample(RISKY, k=2), **at()))
        elif isinstance(state.inflight, (Summarize, RefineOutput)):
            state, effects = output(state)
        elif isinstance(state.inflight, ProposeStep):
            proposal = step("restart_service", Risk.EXEC, service="auth")
            state, effects = machine.transition(state, StepProposedEvent(step=proposal, **at()))
        else:
            raise AssertionError(state.inflight)
        trace.append((state, effects))
    return trace


@pytest.mark.parametrize("seed", range(300))
def test_risky_step_never_runs_without_approval_of_its_exact_params(seed: int) -> None:
    for state, effects in _random_walk(seed):
        for effect in effects:
            if isinstance(effect, RunStep):
                s = state.step(effect.number)
                if s.risk >= state.policy.confirm_threshold or state.takeover:
                    assert s.approved_digest == s.digest, (seed, s)
                    assert s.approved_by is not None
        assert state.retries <= state.policy.max_retries
        assert state.executed <= state.policy.max_steps


def test_takeover_instruction_becomes_one_approved_step() -> None:
    state, _ = machine.transition(new(), PlanFailed(error="bad JSON", **at()))
    assert state.status == "human_takeover" and anchor(state) == "takeover"
    state, effects = decide(state, Instruct(text="check payments"))
    assert effects == [ProposeStep(instruction="check payments")]
    state, _ = machine.transition(state, StepProposedEvent(step=step("check_service", service="payments"), **at()))
    assert anchor(state) == "takeover_step"
    state, effects = decide(state, Approve())
    assert effects == [RunStep(number=1)]
    state, _ = finish_step(state, result="payments ok")
    assert anchor(state) == "takeover" and state.status == "human_takeover"
    state, effects = decide(state, Finish())
    assert effects == [Summarize()]
    state, effects = output(state)
    assert state.status == "done" and Finished(status="done") in effects


def test_takeover_rejected_proposal_is_dropped_and_feedback_is_next_instruction() -> None:
    state, _ = machine.transition(new(), PlanFailed(error="x", **at()))
    state, _ = decide(state, Instruct(text="restart payments"))
    proposal = step("restart_service", Risk.EXEC, service="payments")
    state, _ = machine.transition(state, StepProposedEvent(step=proposal, **at()))
    state, effects = decide(state, Correct(intent="retry_step", feedback="restart auth instead"))
    assert effects == [
        Notify(
            text="Replaced the proposed step 1 `restart_service` (service=payments) "
            "with the new instruction “restart auth instead”."
        ),
        ProposeStep(instruction="restart auth instead"),
    ]
    assert state.plan == []


def test_takeover_instruction_before_the_proposal_is_decided_replaces_it_with_the_same_number() -> None:
    state, _ = planned(RISKY)
    state, _ = decide(state, Approve())
    state, _ = finish_step(state)  # step 1 ran; step 2 waits at its gate
    state = state.model_copy(update={"retries": 3})
    state, _ = decide(state, Correct(intent="retry_step", feedback="read logs for payments"))
    state, _ = machine.transition(state, StepProposedEvent(step=step("read_logs", service="payments"), **at()))
    assert state.pending is not None and state.pending.step == 2
    state, effects = decide(state, Instruct(text="check auth"))
    assert (
        Notify(
            text="Replaced the proposed step 2 `read_logs` (service=payments) with the new instruction “check auth”."
        )
        in effects
    )
    state, _ = machine.transition(state, StepProposedEvent(step=step("check_service", service="auth"), **at()))
    assert state.pending is not None and state.pending.step == 2
    assert [(s.number, s.tool, s.params) for s in state.plan] == [
        (1, "check_service", {"service": "payments"}),
        (2, "check_service", {"service": "auth"}),
    ]


def test_fourth_correction_at_a_gate_sets_unrun_steps_aside_and_proposes_it_as_step_after_the_last_run() -> None:
    state, _ = planned(RISKY)
    state, _ = decide(state, Approve())
    state, _ = finish_step(state)  # step 1 ran; step 2 (the restart) waits at its gate
    assert anchor(state) == "before_risky_step"
    state = state.model_copy(update={"retries": 3})
    state, effects = decide(state, Correct(intent="retry_step", feedback="restart auth instead"))
    assert state.takeover and [s.number for s in state.plan] == [1]
    assert "The 2 planned steps that had not run are set aside." in effects[0].text  # type: ignore[union-attr]
    assert effects[-1] == ProposeStep(instruction="restart auth instead")
    proposal = step("restart_service", Risk.EXEC, service="auth")
    state, effects = machine.transition(state, StepProposedEvent(step=proposal, **at()))
    assert anchor(state) == "takeover_step" and state.pending.step == 2  # type: ignore[union-attr]
    assert not any(isinstance(e, RunStep) for e in effects), "a gated proposal waits for its approval"
    assert [s.tool for s in state.rejected_plans[-1]] == ["restart_service", "read_logs"]


def test_fourth_correction_that_names_no_step_opens_the_takeover_review_with_why() -> None:
    state = _to_result(READS)
    state = state.model_copy(update={"retries": 3})
    state, _ = decide(state, Correct(intent="replan", feedback="order pizza"))
    state, _ = machine.transition(state, StepProposedEvent(message="No tool can do that.", **at()))
    assert anchor(state) == "takeover" and state.pending.note == "No tool can do that."  # type: ignore[union-attr]


def _taken_over(state: RunState) -> RunState:
    """Corrections at the result until a person takes over; the 4th ("no") names no step, so the takeover
    review opens."""
    for round_ in range(4):
        state, _ = decide(state, Correct(intent="refine_output", feedback="no"))
        if state.takeover:
            break
        state, _ = output(state, f"reworked {round_}")
    assert isinstance(state.inflight, ProposeStep) and state.inflight.instruction == "no"
    state, _ = machine.transition(state, StepProposedEvent(message="Name an action.", **at()))
    assert anchor(state) == "takeover"
    return state


def test_hand_back_resets_retries_and_replans() -> None:
    state = _to_result(READS)
    state = _taken_over(state)
    assert state.takeover
    state, effects = decide(state, HandBack(note="try checkout"))
    assert effects[-1] == MakePlan()
    assert not state.takeover and state.retries == 0 and state.status == "planning"


def test_unclear_instruction_keeps_waiting_with_a_note() -> None:
    state, _ = machine.transition(new(), PlanFailed(error="x", **at()))
    state, _ = decide(state, Instruct(text="hmm"))
    state, _ = machine.transition(state, StepProposedEvent(message="Say which service.", **at()))
    assert anchor(state) == "takeover" and state.pending.note == "Say which service."  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("risk", "expect_review"), [(Risk.READ, False), (Risk.WRITE, True), (Risk.EXEC, True), (Risk.DEPLOY, True)]
)
def test_recovery_of_inflight_step_depends_on_risk(risk: Risk, expect_review: bool) -> None:
    steps = [step("a", risk, x=1), step("b")]
    state, _ = planned(steps)
    if state.pending:
        state, _ = decide(state, Approve())
    if anchor(state) == "before_risky_step":
        state, _ = decide(state, Approve())
    assert isinstance(state.inflight, RunStep) and state.step(1).status == "running"
    state, effects = machine.transition(state, Recovered(**at()))
    if expect_review:
        assert anchor(state) == "recovery" and effects == [AskHuman(review=state.pending)]  # type: ignore[arg-type]
        state, effects = decide(state, Approve())
        assert effects == [RunStep(number=1)]
        assert state.step(1).attempts == 2
    else:
        assert effects == [RunStep(number=1)] and state.pending is None
    assert state.executed == 1


def test_recovery_reissues_interrupted_planning() -> None:
    state, effects = machine.transition(new(), Recovered(**at()))
    assert effects == [MakePlan()]


def test_cancel_decision_ends_the_run() -> None:
    state, _ = planned(READS, REVIEWED)
    state, effects = decide(state, Cancel(reason="not now"), by="U9")
    assert state.status == "cancelled" and state.pending is None
    assert effects[-1] == Finished(status="cancelled")


def test_cancel_while_working_ignores_the_late_step_result() -> None:
    state, _ = planned(READS[:2])
    state, _ = machine.transition(state, CancelRequested(by="U1", **at()))
    assert state.status == "cancelled"
    with pytest.raises(InvalidDecision, match="already cancelled"):
        machine.transition(state, StepFinished(number=1, ok=True, **at()))


def test_decision_for_another_review_is_refused() -> None:
    state, _ = planned(READS, REVIEWED)
    with pytest.raises(InvalidDecision, match="not the pending review"):
        machine.transition(state, Decided(review_id="other", decision=Approve(), by="U1", **at()))


def test_takeover_only_decisions_are_refused_outside_takeover() -> None:
    state, _ = planned(READS, REVIEWED)
    with pytest.raises(InvalidDecision, match="only applies during human takeover"):
        decide(state, Finish())


@pytest.mark.parametrize("steps", [[], [step("a")] * 11])
def test_empty_or_oversized_plan_goes_to_takeover(steps: list[ProposedStep]) -> None:
    state, _ = planned(steps)
    assert state.status == "human_takeover"


def test_step_budget_exhausted_fails_the_run() -> None:
    state, _ = planned(READS[:2], Policy(max_steps=2, anchors=frozenset({"before_result"}), dynamic_anchors=False))
    state, _ = finish_step(state)
    state, _ = finish_step(state)
    state, _ = output(state)
    state, _ = decide(state, Correct(intent="retry_step", target_step=1, feedback="again"))
    state, effects = machine.transition(state, StepRevised(number=1, params={"service": "x"}, **at()))
    assert state.status == "failed" and "at most 2 steps" in (state.error or "")
    assert effects[-1] == Finished(status="failed")


def test_transition_does_not_mutate_its_input() -> None:
    state, _ = planned(READS, REVIEWED)
    before = state.model_dump_json()
    decide(state, Approve())
    assert state.model_dump_json() == before


@pytest.mark.parametrize(
    ("wish", "status", "first"),
    [("finish", "human_takeover", Summarize()), ("hand_back", "planning", MakePlan()), ("cancel", "cancelled", None)],
)
def test_takeover_wishes_typed_as_instructions_take_effect(wish: str, status: str, first: object) -> None:
    state, _ = machine.transition(new(), PlanFailed(error="x", **at()))
    state, _ = decide(state, Instruct(text=wish))
    state, effects = machine.transition(state, StepProposedEvent(wish=wish, **at()))  # type: ignore[arg-type]
    assert state.status == status
    if first is not None:
        assert first in effects
    else:
        assert Finished(status="cancelled") in effects


def test_steps_are_numbered_once_per_run_across_takeover_and_hand_back() -> None:
    state = _to_result(READS)  # steps 1-3 ran
    state = _taken_over(state)
    state, _ = decide(state, Instruct(text="check auth"))
    state, _ = machine.transition(state, StepProposedEvent(step=step("check_service", service="auth"), **at()))
    assert state.pending is not None and state.pending.step == 4, "a takeover step goes on from the last number"
    state, _ = decide(state, Approve())
    state, _ = finish_step(state)
    state, _ = decide(state, HandBack(note="try checkout"))
    state, _ = machine.transition(state, PlanProposed(steps=[step("check_service", service="checkout")] * 3, **at()))
    numbers = [s.number for s in (*state.history, *state.plan)]
    assert numbers == [1, 2, 3, 4, 5, 6, 7], "no number repeats, and what ran stays in the history"
    assert [s.status for s in state.history] == ["done"] * 4


def test_plan_declined_at_first_ends_the_run_at_once_with_why_and_asks_nobody() -> None:
    why = "No tool here can do “order pizza”. What I can do here: check service."
    state, effects = machine.transition(new(), PlanDeclined(reason=why, **at()))
    assert state.status == "failed" and state.error == why and state.pending is None
    assert effects == [Finished(status="failed")]


def test_plan_declined_on_a_replan_hands_the_run_to_the_person_already_there() -> None:
    state, _ = planned(READS, REVIEWED)
    state, _ = decide(state, Correct(intent="replan", feedback="order pizza instead"))
    state, effects = machine.transition(state, PlanDeclined(reason="No tool here can do that.", **at()))
    assert state.status == "human_takeover" and anchor(state) == "takeover"
    assert state.takeover_reason == "No tool here can do that."
