"""A plan's approval that also approves its risky steps (the plan review and the gate merged), and when a
risky step's outcome stops the run: the pure machine under a policy, no I/O."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from agent import machine
from agent.config import AnchorsRule, PolicyConfig, TimeoutRule
from agent.merge import shown_params
from agent.models import (
    AfterRisky,
    Approve,
    Correct,
    Decided,
    Effect,
    Notify,
    OutputReady,
    PlanProposed,
    Policy,
    ProposedStep,
    Reading,
    Recovered,
    Risk,
    RunState,
    RunStep,
    StepFinished,
    StepRevised,
    TimedOut,
)
from agent.policy import SafetyPolicy
from agent.review_view import review_view
from agent.runtime.audit import audit_lines, decided_of

ALICE, BOB, DAVE = "U0ALICE", "U0BOB", "U0DAVE"
_ticks = itertools.count(1)


def _at() -> dict[str, Any]:
    n = next(_ticks)
    return {"at": 1000.0 + n, "nonce": f"n{n:04d}xxxxxxxx"}


def _step(tool: str, risk: Risk = Risk.READ, **params: Any) -> ProposedStep:
    return ProposedStep(tool=tool, params=params, reason=f"because {tool}", risk=risk)


RESTART_AND_CHECK = [
    _step("restart_service", Risk.EXEC, service="payments"),
    _step("read_logs", service="payments", level="error"),
]
DEMO = SafetyPolicy(PolicyConfig(approvers={"exec": [BOB], "deploy": [BOB]}))
ON = PolicyConfig().run_policy()  # the defaults: merge on, an outcome stops only before another risky step


def _planned(steps: list[ProposedStep], safety: SafetyPolicy = DEMO, policy: Policy = ON) -> RunState:
    state, _ = machine.start("r1", "restart payments and check errors after", ALICE, 1000.0, policy=policy)
    state, _ = machine.transition(state, PlanProposed(steps=steps, **_at()), safety)
    assert state.pending is not None and state.pending.anchor == "after_plan"
    return state


def _decide(
    state: RunState, by: str, safety: SafetyPolicy = DEMO, decision: Any = None, **extra: Any
) -> tuple[RunState, list[Effect]]:
    assert state.pending is not None
    event = Decided(review_id=state.pending.id, decision=decision or Approve(), by=by, **extra, **_at())
    return machine.transition(state, event, safety)


def _finish(state: RunState, safety: SafetyPolicy = DEMO) -> tuple[RunState, list[Effect]]:
    assert isinstance(state.inflight, RunStep), state.inflight
    return machine.transition(state, StepFinished(number=state.inflight.number, ok=True, result="ok", **_at()), safety)


def _anchor(state: RunState) -> str | None:
    return state.pending.anchor if state.pending else None


def test_plan_approved_by_an_exec_approver_runs_the_restart_without_asking_again() -> None:
    state, effects = _decide(_planned(RESTART_AND_CHECK), BOB)
    assert RunStep(number=1) in effects and state.pending is None
    assert (state.step(1).approved_by, state.step(1).approved_digest) == (BOB, state.step(1).digest)
    (told,) = [e.text for e in effects if isinstance(e, Notify)]
    assert told == (
        "⟦@U0BOB⟧ approved step 1 (`restart_service`) with the plan: it runs without asking again "
        "unless its parameters change."
    )
    state, _ = _finish(state)  # only a read follows: the outcome shows on the result, no stop
    state, effects = _finish(state)
    state, _ = machine.transition(state, OutputReady(text="restarted; no errors", **_at()), DEMO)
    assert _anchor(state) == "before_result"


def test_plan_approved_by_the_requester_leaves_the_restart_waiting_for_bob() -> None:
    state, effects = _decide(_planned(RESTART_AND_CHECK), ALICE)
    assert state.pending is not None and state.pending.anchor == "before_risky_step" and state.pending.step == 1
    assert state.step(1).approved_digest is None
    assert not [e for e in effects if isinstance(e, Notify)]
    assert DEMO.waiting_on(state, state.pending) == (BOB,)


def test_plan_approved_in_free_text_never_merges_an_exec_gate() -> None:
    reading = Reading(intent="approve", confidence=0.95)
    state, _ = _decide(_planned(RESTART_AND_CHECK), BOB, reading=reading)
    assert _anchor(state) == "before_risky_step" and state.step(1).approved_digest is None


def test_plan_approved_in_free_text_merges_a_write_step() -> None:
    post = [_step("post_status", Risk.WRITE, text="payments restarted")]
    safety = SafetyPolicy(PolicyConfig(approvers={"write": [BOB]}))
    state = _planned([*post, _step("list_services")], safety)
    state, effects = _decide(state, BOB, safety, reading=Reading(intent="approve", confidence=0.95))
    assert RunStep(number=1) in effects and state.step(1).approved_by == BOB


def test_plan_approved_by_its_deadline_never_merges_a_gate() -> None:
    rule = TimeoutRule(after=60, strategy="use_default", default="approve")
    safety = SafetyPolicy(PolicyConfig(timeouts={"after_plan": rule}))  # the requester decides everything here
    state = _planned(RESTART_AND_CHECK, safety)
    assert state.pending is not None and state.pending.deadline is not None
    late = {"at": state.pending.deadline + 1, "nonce": "late00000000"}
    state, _ = machine.transition(state, TimedOut(review_id=state.pending.id, **late), safety)
    assert _anchor(state) == "before_risky_step" and state.step(1).approved_digest is None


def test_deploy_under_a_quorum_of_two_collects_both_approvals_at_its_own_gate() -> None:
    safety = SafetyPolicy(PolicyConfig(approvers={"deploy": [BOB, DAVE]}, quorum={"deploy": 2}))
    state = _planned([_step("deploy", Risk.DEPLOY, service="payments", version="2.4.1")], safety)
    view = review_view(state, state.pending, safety)  # type: ignore[arg-type]
    assert view.gate_lines == [
        "✋ Step 1 `deploy` still asks ⟦@U0BOB⟧ or ⟦@U0DAVE⟧ right before it runs (it needs 2 approvals)."
    ]
    state, _ = _decide(state, BOB, safety)
    assert _anchor(state) == "before_risky_step" and state.pending.quorum == 2  # type: ignore[union-attr]
    state, effects = _decide(state, BOB, safety)
    assert not any(isinstance(e, RunStep) for e in effects)
    state, effects = _decide(state, DAVE, safety)
    assert effects[-1] == RunStep(number=1)
    assert state.step(1).approved_by == DAVE


def test_deploy_with_one_approval_needed_merges_for_its_approver() -> None:
    state = _planned([_step("deploy", Risk.DEPLOY, service="payments", version="2.4.1")])
    state, effects = _decide(state, BOB)
    assert RunStep(number=1) in effects and state.step(1).approved_by == BOB


def test_merged_step_whose_params_are_corrected_asks_again() -> None:
    two = [_step("restart_service", Risk.EXEC, service="payments"), _step("restart_service", Risk.EXEC, service="auth")]
    state, _ = _decide(_planned(two), BOB)
    assert state.step(2).approved_by == BOB
    state, _ = _finish(state)
    assert _anchor(state) == "after_risky_step"  # another risky step follows: its outcome stops the run
    state, _ = _decide(state, BOB, decision=Correct(intent="retry_step", target_step=2, feedback="restart search"))
    state, effects = machine.transition(state, StepRevised(number=2, params={"service": "search"}, **_at()), DEMO)
    assert _anchor(state) == "before_risky_step" and state.pending.step == 2  # type: ignore[union-attr]
    assert not any(isinstance(e, RunStep) for e in effects)


def test_replanned_step_is_not_covered_by_the_old_plans_approval() -> None:
    two = [_step("restart_service", Risk.EXEC, service="payments"), _step("restart_service", Risk.EXEC, service="auth")]
    state, _ = _decide(_planned(two), BOB)
    state, _ = _finish(state)
    state, _ = _decide(state, BOB, decision=Correct(intent="replan", feedback="restart checkout, not auth"))
    state, _ = machine.transition(
        state, PlanProposed(steps=[_step("restart_service", Risk.EXEC, service="checkout")], **_at()), DEMO
    )
    assert _anchor(state) == "after_plan" and state.plan[0].approved_digest is None
    state, _ = _decide(state, ALICE)  # alice may approve the new plan, not the restart in it
    assert _anchor(state) == "before_risky_step"


def test_merge_off_in_the_policy_keeps_every_gate() -> None:
    seeds = PolicyConfig(anchors=AnchorsRule(merge_gate=False, after_risky_step="any_follows")).run_policy()
    state = _planned(RESTART_AND_CHECK, policy=seeds)
    assert review_view(state, state.pending, DEMO).gate_lines == [  # type: ignore[arg-type]
        "✋ Step 1 asks for approval again right before it runs."
    ]
    state, _ = _decide(state, BOB)
    assert _anchor(state) == "before_risky_step"
    state, _ = _decide(state, BOB)
    state, _ = _finish(state)
    assert _anchor(state) == "after_risky_step"  # the seeds' policy stops after every risky step


def test_step_whose_params_cannot_be_shown_in_full_keeps_its_gate() -> None:
    long = _step("post_status", Risk.EXEC, text="x" * 300)
    state = _planned([long, _step("list_services")])
    view = review_view(state, state.pending, DEMO)  # type: ignore[arg-type]
    assert view.gate_lines == [
        "✋ Step 1 `post_status` still asks ⟦@U0BOB⟧ right before it runs "
        "(its parameters are too long to show in full here)."
    ]
    state, _ = _decide(state, BOB)
    assert _anchor(state) == "before_risky_step"


def test_plan_review_says_who_the_merge_is_for() -> None:
    state = _planned(RESTART_AND_CHECK)
    assert review_view(state, state.pending, DEMO).gate_lines == [  # type: ignore[arg-type]
        "✋ Approved by ⟦@U0BOB⟧ (who may approve exec steps), this plan also approves step 1 `restart_service` "
        "`service=payments`; approved by anyone else, step 1 still asks ⟦@U0BOB⟧ right before it runs."
    ]
    alone = SafetyPolicy()  # the requester decides everything: their approval of the plan covers the step
    state = _planned(RESTART_AND_CHECK, alone)
    assert review_view(state, state.pending, alone).gate_lines == [  # type: ignore[arg-type]
        "✋ Approving this plan also approves step 1 `restart_service` `service=payments` (exec): it runs without "
        "asking again unless its parameters change."
    ]


def test_approver_through_a_group_merges_with_the_groups_the_channel_knew() -> None:
    safety = SafetyPolicy(PolicyConfig(approvers={"exec": ["S0OPS"]}))
    state, _ = _decide(_planned(RESTART_AND_CHECK, safety), DAVE, safety, groups=["S0OPS"])
    assert state.step(1).approved_by == DAVE and _anchor(state) is None


def test_audit_line_of_the_plan_approval_lists_the_steps_approved_with_it() -> None:
    before = _planned(RESTART_AND_CHECK)
    assert before.pending is not None
    event = Decided(review_id=before.pending.id, decision=Approve(), by=BOB, **_at())
    after, effects = machine.transition(before, event, DEMO)
    (line, *_) = audit_lines(event, BOB, effects, before, after)
    assert line.payload["with_plan"] == [
        {"step": 1, "tool": "restart_service", "shape": "restart_service(service=payments)"}
    ]
    assert "gate" not in line.payload  # no gate was asked: the always-allow streak neither grows nor breaks
    assert decided_of(line).decision == Approve() and decided_of(line).by == BOB  # the line still reads back


def test_merged_step_interrupted_mid_way_asks_before_it_runs_again() -> None:
    state, _ = _decide(_planned(RESTART_AND_CHECK), BOB)
    assert isinstance(state.inflight, RunStep)
    state, _ = machine.transition(state, Recovered(**_at()), DEMO)
    assert _anchor(state) == "recovery" and state.pending.step == 1  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("after_risky", "stops"),
    [("risky_follows", False), ("any_follows", True)],
)
def test_outcome_of_a_risky_step_followed_only_by_reads_stops_as_the_policy_says(
    after_risky: AfterRisky, stops: bool
) -> None:
    policy = PolicyConfig(anchors=AnchorsRule(after_risky_step=after_risky)).run_policy()
    state, _ = _decide(_planned(RESTART_AND_CHECK, policy=policy), BOB)
    state, effects = _finish(state)
    assert (_anchor(state) == "after_risky_step") is stops
    assert (RunStep(number=2) in effects) is not stops


def test_policy_without_a_plan_review_still_stops_every_risky_step_at_its_gate() -> None:
    policy = PolicyConfig(anchors=AnchorsRule(stop=["before_result"])).run_policy()
    state, _ = machine.start("r1", "restart payments", ALICE, 1000.0, policy=policy)
    state, effects = machine.transition(state, PlanProposed(steps=RESTART_AND_CHECK, **_at()), DEMO)
    assert _anchor(state) == "before_risky_step" and not any(isinstance(e, RunStep) for e in effects)


def test_params_are_shown_unambiguously_or_not_merged() -> None:
    assert shown_params({"service": "payments", "replicas": 4}) == "service=payments, replicas=4"
    assert shown_params({"text": "x, replicas=9"}) == 'text="x, replicas=9"'  # one value, not two params
    assert shown_params({"text": "a`b"}) is None and shown_params({"text": "y" * 300}) is None
