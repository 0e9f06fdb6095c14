"""What may run, asked of SafetyPolicy the way the machine and the runtime ask it, and the machine doing
exactly what it answers: no second place decides (pure: no I/O, no event loop)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from agent import machine
from agent.config import PolicyConfig
from agent.errors import InvalidDecision
from agent.models import (
    AddRule,
    Approval,
    Approve,
    AskHuman,
    CloseReview,
    Decided,
    Effect,
    MakePlan,
    PlanProposed,
    Policy,
    ProposedStep,
    Recovered,
    Review,
    Risk,
    Rule,
    RunState,
    RunStep,
    StepFinished,
    Summarize,
)
from agent.policy import SafetyPolicy

ALICE = "U0ALICE"
RULE = Rule(id="r1", channel="C0OPS", tool="t1", created_by=ALICE, created_at=0)
THRESHOLDS = (Risk.WRITE, Risk.EXEC, Risk.DEPLOY)


def _event(n: int) -> dict[str, Any]:
    return {"at": 1000.0 + n, "nonce": f"n{n:04d}xxxxxxxx"}


def _planned(risks: list[Risk], policy: SafetyPolicy, run: Policy) -> tuple[RunState, list[Effect]]:
    """A terminal run (no rule lookup) given a plan of one step per risk, under its snapshot ``run``."""
    state, _ = machine.start("r1", "do it", ALICE, 1000.0, policy=run)
    steps = [ProposedStep(tool=f"t{n}", params={"n": n}, reason="r", risk=r) for n, r in enumerate(risks, 1)]
    return machine.transition(state, PlanProposed(steps=steps, **_event(1)), policy)


def _decide(state: RunState, policy: SafetyPolicy, n: int) -> tuple[RunState, list[Effect]]:
    assert state.pending is not None
    event = Decided(review_id=state.pending.id, decision=Approve(), by=ALICE, **_event(n))
    return machine.transition(state, event, policy)


class EveryStepRisky(SafetyPolicy):
    """A policy stricter than any run's snapshot: every step is risky."""

    def risky(self, state: RunState, risk: Risk) -> bool:
        return True


# --- the gate -------------------------------------------------------------------------------------


@pytest.mark.parametrize("approval", ["none", "exact", "stale"])
@pytest.mark.parametrize("risk", list(Risk))
@pytest.mark.parametrize("threshold", THRESHOLDS)
def test_machine_runs_a_step_exactly_when_the_policy_says_it_may(threshold: Risk, risk: Risk, approval: str) -> None:
    """The plan review is approved with the step pending: the machine runs it, or opens its gate, as
    ``may_run`` answers; the answer is the run's threshold, or an approval of its exact params."""
    policy = SafetyPolicy()
    run = Policy(anchors=frozenset({"after_plan"}), dynamic_anchors=False, confirm_threshold=threshold)
    state, _ = _planned([risk], policy, run)
    assert state.pending is not None and state.pending.anchor == "after_plan"
    step = state.plan[0]
    step.approved_digest = {"none": None, "exact": step.digest, "stale": "an-older-digest"}[approval]
    may = policy.may_run(state, step)
    assert may is (risk < threshold or approval == "exact")

    state, effects = _decide(state, policy, 2)

    assert (RunStep(number=1) in effects) is may
    gate = state.pending
    assert (gate is not None and gate.anchor == "before_risky_step" and gate.step == 1) is not may


def test_machine_gates_a_step_its_policy_calls_risky_whatever_the_snapshot_says() -> None:
    """The machine asks the SafetyPolicy it is given, nothing else: under a stricter one a read step
    (below the run's threshold) stops at a gate, and its outcome stops the run before the next step."""
    policy = EveryStepRisky()
    state, effects = _planned([Risk.READ, Risk.READ], policy, Policy(anchors=frozenset({"after_risky_step"})))
    assert state.pending is not None and state.pending.anchor == "before_risky_step" and state.pending.step == 1
    assert not any(isinstance(e, RunStep) for e in effects)

    state, effects = _decide(state, policy, 2)
    assert RunStep(number=1) in effects
    state, _ = machine.transition(state, StepFinished(number=1, ok=True, result="ok", **_event(3)), policy)
    assert state.pending is not None and state.pending.anchor == "after_risky_step" and state.pending.step == 1


def test_machine_refuses_to_start_a_gated_step_never_approved_on_any_path() -> None:
    """Every way to a step's run asks ``may_run`` last: a read step cut off by a crash re-runs with nobody
    asked, but not under a policy that gates it and nobody approved it. Nothing changes."""
    state, effects = _planned([Risk.READ], SafetyPolicy(), Policy(anchors=frozenset()))
    assert effects == [RunStep(number=1)]
    with pytest.raises(InvalidDecision, match="needs an approval of its exact parameters first"):
        machine.transition(state, Recovered(**_event(2)), EveryStepRisky())
    assert state.step(1).status == "running" and state.step(1).approved_digest is None


def test_policy_gate_follows_the_runs_snapshot_not_todays_configuration() -> None:
    """A run keeps the threshold it started under: today's file asking only before deploys opens no old gate."""
    today = SafetyPolicy(PolicyConfig(confirm_threshold="deploy"))
    state, _ = _planned([Risk.WRITE], today, Policy(anchors=frozenset(), confirm_threshold=Risk.WRITE))
    assert not today.may_run(state, state.plan[0])
    assert state.pending is not None and state.pending.anchor == "before_risky_step"


@pytest.mark.parametrize(("quorum", "counted", "needed"), [(1, 0, 1), (2, 0, 2), (2, 1, 1), (3, 1, 2), (1, 1, 1)])
def test_policy_still_needed_counts_down_to_the_approval_that_decides(quorum: int, counted: int, needed: int) -> None:
    review = Review(id="g", anchor="before_risky_step", step=1, created_at=0, quorum=quorum)
    review.approvals = [Approval(by=f"U{n}", at=0.0) for n in range(counted)]
    assert SafetyPolicy().still_needed(review) == needed


# --- anchors --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("risks", "read_only", "plan", "result"),
    [
        ([Risk.READ, Risk.READ], "done", False, False),  # a plan that only reads is done without a review
        ([Risk.READ, Risk.READ, Risk.READ], "done", False, False),
        ([Risk.READ, Risk.READ], "review", False, True),  # as Tandem first did: a short one at its result
        ([Risk.READ, Risk.READ, Risk.READ], "review", True, True),  # a longer one at its plan too
        ([Risk.READ, Risk.WRITE], "done", True, True),  # a risky step: every anchor of the run's policy
        ([Risk.EXEC], "review", True, True),
    ],
)
def test_machine_stops_at_the_plan_and_result_where_the_policy_says(
    risks: list[Risk], read_only: str, plan: bool, result: bool
) -> None:
    policy = SafetyPolicy()
    run = Policy(read_only=read_only)  # type: ignore[arg-type]
    state, effects = _planned(risks, policy, run)
    assert state.anchors == policy.anchors(state, state.plan)
    assert policy.stops_at(state, "after_plan") is plan and policy.stops_at(state, "before_result") is result
    stopped = state.pending is not None and state.pending.anchor == "after_plan"
    assert stopped is plan
    if not plan and risks[0] == Risk.READ:
        assert effects == [RunStep(number=1)]


@pytest.mark.parametrize(
    ("after_risky_step", "rest", "stops"),
    [
        ("risky_follows", [], False),
        ("risky_follows", [Risk.READ], False),  # only another risky step waits for the outcome
        ("risky_follows", [Risk.READ, Risk.WRITE], True),
        ("any_follows", [], False),
        ("any_follows", [Risk.READ], True),
    ],
)
def test_machine_stops_after_a_risky_step_where_the_policy_says(
    after_risky_step: str, rest: list[Risk], stops: bool
) -> None:
    policy = SafetyPolicy()
    run = Policy(anchors=frozenset({"after_risky_step"}), after_risky_step=after_risky_step)  # type: ignore[arg-type]
    state, _ = _planned([Risk.WRITE, *rest], policy, run)
    state, _ = _decide(state, policy, 2)
    state, effects = machine.transition(state, StepFinished(number=1, ok=True, result="ok", **_event(3)), policy)
    assert policy.stops_after(state, state.step(1)) is stops
    outcome = state.pending is not None and state.pending.anchor == "after_risky_step"
    assert outcome is stops
    if not stops and rest and rest[0] == Risk.READ:
        assert effects == [RunStep(number=2)]


# --- after a crash --------------------------------------------------------------------------------


def _risk_of(tools: dict[str, Risk]) -> Callable[[str], Risk | None]:
    return tools.get


@pytest.mark.parametrize("threshold", THRESHOLDS)
@pytest.mark.parametrize("risk", list(Risk))
def test_recovery_and_the_lazy_commit_agree_on_what_may_run_twice(risk: Risk, threshold: Risk) -> None:
    """A step cut off by a crash re-runs with nobody asked exactly when a commit leading to it may skip
    the disk (a crash there repeats it too): only a read, whatever the run's threshold."""
    policy = SafetyPolicy()
    state, effects = _planned([risk], policy, Policy(anchors=frozenset(), confirm_threshold=threshold))
    if state.pending is not None:  # gated: approved, so it runs
        state, effects = _decide(state, policy, 2)
    assert RunStep(number=1) in effects
    replayable = policy.replayable(state, effects, _risk_of({"t1": risk}))
    assert replayable is (risk == Risk.READ)

    state, _ = machine.transition(state, Recovered(**_event(4)), policy)

    asked = state.pending is not None and state.pending.anchor == "recovery"
    assert asked is not replayable and asked is policy.rerun_needs_person(state.step(1))


@pytest.mark.parametrize(
    ("effects", "tools", "replayable"),
    [
        ([RunStep(number=1)], {"t1": Risk.READ}, True),
        ([CloseReview(review_id="g"), RunStep(number=1), AddRule(rule=RULE)], {"t1": Risk.READ}, True),
        ([RunStep(number=1)], {"t1": Risk.WRITE}, False),  # the tool writes now, whatever the plan said
        ([RunStep(number=1)], {}, False),  # a tool unknown here
        ([CloseReview(review_id="g")], {"t1": Risk.READ}, False),  # no work: nothing to gain
        (
            [RunStep(number=1), AskHuman(review=Review(id="g", anchor="after_plan", created_at=0))],
            {"t1": Risk.READ},
            False,
        ),
        ([MakePlan()], {"t1": Risk.READ}, False),  # a model call is paid for and slow
        ([Summarize()], {"t1": Risk.READ}, False),  # so is writing the result with such a model
    ],
)
def test_policy_replayable_only_work_safe_to_repeat_that_tells_nobody(
    effects: list[Effect], tools: dict[str, Risk], replayable: bool
) -> None:
    policy = SafetyPolicy()
    state, _ = _planned([Risk.READ], policy, Policy(anchors=frozenset()))
    assert policy.replayable(state, effects, _risk_of(tools)) is replayable


@pytest.mark.parametrize(
    ("effects", "replayable"),
    [
        ([Summarize()], True),  # written from what ran, at once and at no cost: the same again after a crash
        ([CloseReview(review_id="g"), Summarize()], True),
        ([MakePlan()], False),  # a plan (a correction's) is not only what ran
        ([Summarize(), AskHuman(review=Review(id="g", anchor="before_result", created_at=0))], False),
    ],
)
def test_policy_replayable_with_a_local_model_only_the_result_written_from_what_ran(
    effects: list[Effect], replayable: bool
) -> None:
    policy = SafetyPolicy()
    state, _ = _planned([Risk.READ], policy, Policy(anchors=frozenset()))
    assert policy.replayable(state, effects, _risk_of({"t1": Risk.READ}), local_model=True) is replayable


# --- thresholds ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("risk", "repeats", "text", "always_asks"),
    [
        (Risk.READ, True, True, False),
        (Risk.WRITE, False, True, False),
        (Risk.EXEC, False, False, False),
        (Risk.DEPLOY, False, False, True),
    ],
)
def test_policy_thresholds_by_risk(risk: Risk, repeats: bool, text: bool, always_asks: bool) -> None:
    policy = SafetyPolicy()
    assert policy.safe_to_repeat(risk) is repeats
    assert policy.text_approves(risk) is text
    assert policy.always_asks(risk) is always_asks
