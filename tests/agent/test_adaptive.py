"""Adaptive confirmation: the "always allow" offer a gate earns from its history, and rules suspended
when a step they let run is corrected or rejected (pure machine and policy; no I/O)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from agent import machine
from agent.config import PolicyConfig, RulesRule
from agent.models import (
    Approve,
    Cancel,
    Correct,
    Decided,
    Effect,
    GateDecision,
    Notify,
    PlanProposed,
    Policy,
    ProposedStep,
    Risk,
    Rule,
    RuleChecked,
    RunState,
    StepFinished,
    SuspendRule,
)
from agent.policy import SafetyPolicy
from agent.review_view import review_view
from agent.runtime.audit import audit_lines

_ticks = itertools.count(1)
ALICE, BOB, CAROL = "U0ALICE", "U0BOB", "U0CAROL"
SHAPE = "restart_service(service=payments)"


def _at() -> dict[str, Any]:
    n = next(_ticks)
    return {"at": 1000.0 + n, "nonce": f"n{n:04d}xxxxxxxx"}


def _restart(risk: Risk = Risk.EXEC) -> ProposedStep:
    return ProposedStep(tool="restart_service", params={"service": "payments"}, reason="r", risk=risk)


def _planned(policy: SafetyPolicy, risk: Risk = Risk.EXEC) -> RunState:
    anchors = frozenset({"after_risky_step", "before_result"})
    fields = {
        "policy": Policy(anchors=anchors, dynamic_anchors=False, after_risky_step="any_follows"),
        "channel": {"channel": "C0OPS", "thread_ts": "1.0"},
    }
    state, _ = machine.start("r1", "restart payments", ALICE, 1000.0, **fields)
    logs = ProposedStep(tool="read_logs", params={"service": "payments"}, reason="r", risk=Risk.READ)
    state, _ = machine.transition(state, PlanProposed(steps=[_restart(risk), logs], **_at()), policy)
    return state


def _history(*approved: bool) -> list[GateDecision]:
    return [GateDecision(run_id=f"old{i}", by=BOB, at=900.0 - i, approved=a) for i, a in enumerate(approved)]


def _gate(policy: SafetyPolicy, history: list[GateDecision], risk: Risk = Risk.EXEC) -> RunState:
    state = _planned(policy, risk)
    state, _ = machine.transition(state, RuleChecked(number=1, history=history, **_at()), policy)
    assert state.pending is not None and state.pending.anchor == "before_risky_step"
    return state


def _decide(state: RunState, decision: Any, by: str, policy: SafetyPolicy) -> tuple[RunState, list[Effect]]:
    assert state.pending is not None
    return machine.transition(state, Decided(review_id=state.pending.id, decision=decision, by=by, **_at()), policy)


THREE = SafetyPolicy(PolicyConfig(rules=RulesRule(offer_after=3)))


def test_gate_after_n_unchanged_approvals_offers_always_allow_with_the_history() -> None:
    state = _gate(THREE, _history(True, True, True, False))
    assert state.pending is not None and state.pending.offer is not None
    assert state.pending.offer.shape == SHAPE
    assert [d.run_id for d in state.pending.offer.approvals] == ["old0", "old1", "old2"]
    view = review_view(state, state.pending, THREE)
    assert "approve_always" in view.choices
    assert view.offer_text is not None
    assert view.offer_text.startswith(f"⟦@{BOB}⟧ approved `{SHAPE}` unchanged 3 times in a row here: ⟦t:900⟧")


@pytest.mark.parametrize(
    "history",
    [
        _history(True, True),  # not enough yet
        _history(True, False, True, True),  # a change among the latest three
        _history(False, True, True, True),  # the latest was a change
        [],
    ],
)
def test_gate_without_n_unchanged_approvals_in_a_row_offers_nothing(history: list[GateDecision]) -> None:
    state = _gate(THREE, history)
    assert state.pending is not None and state.pending.offer is None
    assert review_view(state, state.pending, THREE).offer_text is None


@pytest.mark.parametrize(
    ("config", "risk"),
    [
        (PolicyConfig(rules=RulesRule(offer_after=3)), Risk.DEPLOY),  # deploys always ask
        (PolicyConfig(rules=RulesRule(offer_after=3), approvers={"exec": [BOB, CAROL]}, quorum={"exec": 2}), Risk.EXEC),
        (PolicyConfig(rules=RulesRule(offer_after=0)), Risk.EXEC),  # switched off
    ],
)
def test_gate_for_a_deploy_or_under_a_quorum_never_offers_always_allow(config: PolicyConfig, risk: Risk) -> None:
    policy = SafetyPolicy(config)
    state = _gate(policy, _history(True, True, True, True, True), risk)
    assert state.pending is not None and state.pending.offer is None
    view = review_view(state, state.pending, policy)
    assert view.offer is None and view.offer_text is None


def test_offer_made_before_a_quorum_was_configured_is_not_shown() -> None:
    state = _gate(THREE, _history(True, True, True))
    quorum = SafetyPolicy(PolicyConfig(approvers={"exec": [BOB, CAROL]}, quorum={"exec": 2}))
    assert state.pending is not None and state.pending.offer is not None
    view = review_view(state, state.pending, quorum)
    assert "approve_always" not in view.choices and view.offer_text is None


def test_audit_line_of_a_decision_at_a_gate_names_the_call_shape() -> None:
    state = _gate(THREE, [])
    assert state.pending is not None
    event = Decided(review_id=state.pending.id, decision=Approve(), by=BOB, **_at())
    after, effects = machine.transition(state, event, THREE)
    (line, *_) = audit_lines(event, BOB, effects, state, after)
    assert line.kind == "decided" and line.payload["gate"] == SHAPE and line.actor == BOB


# --- suspension ------------------------------------------------------------------------------


def _ran_by_rule(policy: SafetyPolicy = THREE) -> RunState:
    """A run whose step 1 a standing rule let run, now at the review of its outcome."""
    state = _planned(policy)
    rule = Rule(id="rule1", channel="C0OPS", tool="restart_service", created_by=BOB, created_at=0)
    state, _ = machine.transition(state, RuleChecked(number=1, rule=rule, **_at()), policy)
    assert state.plan[0].approved_by == "rule:rule1"
    state, _ = machine.transition(state, StepFinished(number=1, ok=True, result="ok", **_at()), policy)
    assert state.pending is not None and state.pending.anchor == "after_risky_step"
    return state


@pytest.mark.parametrize(
    ("decision", "verb"),
    [
        (Correct(intent="retry_step", feedback="use the canary first"), "corrected"),
        (Cancel(reason="wrong service"), "rejected"),
    ],
)
def test_correcting_or_rejecting_a_step_a_rule_let_run_suspends_the_rule_and_says_so(
    decision: Correct | Cancel, verb: str
) -> None:
    state = _ran_by_rule()
    _, effects = _decide(state, decision, CAROL, THREE)
    (suspend,) = [e for e in effects if isinstance(e, SuspendRule)]
    assert (suspend.suspension.rule_id, suspend.suspension.by, suspend.suspension.tool) == (
        "rule1",
        CAROL,
        "restart_service",
    )
    told = [e.text for e in effects if isinstance(e, Notify) and "suspended" in e.text]
    assert told and f"⟦@{CAROL}⟧ {verb} step 1" in told[0]


def test_approving_a_step_a_rule_let_run_keeps_the_rule() -> None:
    _, effects = _decide(_ran_by_rule(), Approve(), CAROL, THREE)
    assert not [e for e in effects if isinstance(e, SuspendRule)]


def test_correcting_a_step_a_person_approved_suspends_nothing() -> None:
    state = _gate(THREE, [])
    state, _ = _decide(state, Approve(), BOB, THREE)
    state, _ = machine.transition(state, StepFinished(number=1, ok=True, result="ok", **_at()), THREE)
    _, effects = _decide(state, Correct(intent="retry_step", feedback="again"), CAROL, THREE)
    assert not [e for e in effects if isinstance(e, SuspendRule)]
