"""The one safety policy, table by table, and the machine asking it (pure: no I/O, no event loop). What may
run (the gate, the anchors, re-runs after a crash) is in ``test_gates``."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from pydantic import ValidationError

from agent import machine
from agent.config import PolicyConfig, TimeoutRule
from agent.errors import InvalidDecision, NeedsClarification, UseTheButton
from agent.models import (
    AddRule,
    Answer,
    Approve,
    AskHuman,
    CloseReview,
    Decided,
    Effect,
    MatchRule,
    Notify,
    PlanProposed,
    Policy,
    ProposedStep,
    Reading,
    Recovered,
    Review,
    Risk,
    Rule,
    RuleChecked,
    RunState,
    RunStep,
    Step,
    StepFinished,
    TimedOut,
    mention,
)
from agent.policy import SafetyPolicy

_ticks = itertools.count(1)
ALICE, BOB, CAROL = "U0ALICE", "U0BOB", "U0CAROL"
CHANNEL = {"channel": "C0OPS", "thread_ts": "1.0"}


def _at(offset: float = 0.0) -> dict[str, Any]:
    n = next(_ticks)
    return {"at": 1000.0 + n + offset, "nonce": f"n{n:04d}xxxxxxxx"}


def _step(tool: str, risk: Risk, **params: Any) -> ProposedStep:
    return ProposedStep(tool=tool, params=params, reason="r", risk=risk)


def _state(
    risk: Risk,
    *,
    threshold: Risk = Risk.WRITE,
    channel: dict[str, str] | None = None,
    anchor: str = "before_risky_step",
) -> tuple[RunState, Review]:
    step = Step(number=1, tool="t", risk=risk)
    review = Review(id="r", anchor=anchor, step=1, created_at=0)
    state = RunState(
        id="x",
        task="t",
        requester=ALICE,
        created_at=0,
        updated_at=0,
        plan=[step],
        pending=review,
        policy=Policy(confirm_threshold=threshold),
        channel=channel if channel is not None else dict(CHANNEL),
    )
    return state, review


def _run(
    steps: list[ProposedStep], policy: SafetyPolicy, *, threshold: Risk = Risk.WRITE, channel: bool = False
) -> tuple[RunState, list[Effect]]:
    fields: dict[str, Any] = {"policy": Policy(anchors=frozenset({"before_result"}), confirm_threshold=threshold)}
    if channel:
        fields["channel"] = dict(CHANNEL)
    state, _ = machine.start("r1", "do it", ALICE, 1000.0, **fields)
    return machine.transition(state, PlanProposed(steps=steps, **_at()), policy)


def _decide(
    state: RunState, decision: Any, by: str, policy: SafetyPolicy, reading: Reading | None = None
) -> tuple[RunState, list[Effect]]:
    assert state.pending is not None
    event = Decided(review_id=state.pending.id, decision=decision, by=by, reading=reading, **_at())
    return machine.transition(state, event, policy)


# --- the policy's answers, table by table ------------------------------------------------


@pytest.mark.parametrize(
    ("anchor", "risk", "strategy", "expected"),
    [
        # a gate's deadline never approves it, at any risk, whatever the stored strategy says
        ("before_risky_step", Risk.WRITE, "use_default", "pause"),
        ("before_risky_step", Risk.DEPLOY, "use_default", "pause"),
        ("recovery", Risk.WRITE, "use_default", "pause"),
        ("before_risky_step", Risk.WRITE, "degrade", "degrade"),
        ("before_risky_step", Risk.EXEC, "cancel", "cancel"),
        ("before_risky_step", Risk.EXEC, "reassign", "reassign"),
        # read-level reviews may continue with their default; degrade means nothing there
        ("after_plan", Risk.READ, "use_default", "use_default"),
        ("before_result", Risk.READ, "use_default", "use_default"),
        ("after_plan", Risk.READ, "degrade", "pause"),
        ("step_failed", Risk.READ, None, "pause"),
        # a tool's question may take its default answer (the step was approved before it ran)
        ("handoff", Risk.DEPLOY, "use_default", "use_default"),
    ],
)
def test_policy_on_deadline_never_approves_a_gate(anchor: str, risk: Risk, strategy: str | None, expected: str) -> None:
    state, review = _state(risk, anchor=anchor)
    review.strategy = strategy  # type: ignore[assignment]
    assert SafetyPolicy().on_deadline(state, review) == expected


@pytest.mark.parametrize(
    ("config", "risk", "channel", "refused"),
    [
        (PolicyConfig(), Risk.WRITE, CHANNEL, None),
        (PolicyConfig(), Risk.EXEC, CHANNEL, None),
        (PolicyConfig(), Risk.DEPLOY, CHANNEL, "deploys"),
        (PolicyConfig(), Risk.WRITE, {}, "belong to a channel"),
        (PolicyConfig(approvers={"exec": [BOB, CAROL]}, quorum={"exec": 2}), Risk.EXEC, CHANNEL, "needs 2 approvals"),
        (PolicyConfig(approvers={"exec": [BOB, CAROL]}, quorum={"exec": "all"}), Risk.EXEC, CHANNEL, "needs 2"),
        (PolicyConfig(approvers={"exec": [BOB, CAROL]}, quorum={"exec": 2}), Risk.WRITE, CHANNEL, None),
    ],
)
def test_policy_may_remember_never_under_a_quorum_or_for_deploy(
    config: PolicyConfig, risk: Risk, channel: dict[str, str], refused: str | None
) -> None:
    state, review = _state(risk, channel=channel)
    answer = SafetyPolicy(config).may_remember(state, review)
    if refused is None:
        assert answer is None
    else:
        assert answer is not None and refused in answer


@pytest.mark.parametrize(
    ("risk", "may"), [(Risk.READ, True), (Risk.WRITE, True), (Risk.EXEC, False), (Risk.DEPLOY, False)]
)
def test_policy_free_text_approves_up_to_write(risk: Risk, may: bool) -> None:
    state, review = _state(risk)
    assert SafetyPolicy().text_may_approve(state, review) is may


@pytest.mark.parametrize(
    ("reading", "sure"),
    [
        (Reading(intent="approve", confidence=0.9), True),
        (Reading(intent="approve", confidence=0.2), False),
        (Reading(intent="retry_step", confidence=1.0, fallback=True), False),
    ],
)
def test_policy_text_sure_never_trusts_an_unreadable_answer(reading: Reading, sure: bool) -> None:
    assert SafetyPolicy().text_sure(reading) is sure


@pytest.mark.parametrize("kind", ["before_risky_step", "recovery"])
def test_config_use_default_on_a_gate_is_refused_naming_the_key(kind: str) -> None:
    rule = {"after": "1h", "strategy": "use_default", "default": "approve"}
    with pytest.raises(ValidationError, match=f"timeouts.{kind}.strategy"):
        PolicyConfig.model_validate({"timeouts": {kind: rule}})


def test_config_degrade_outside_a_gate_is_refused_naming_the_key() -> None:
    with pytest.raises(ValidationError, match="timeouts.after_plan.strategy: 'degrade' applies to gates only"):
        PolicyConfig.model_validate({"timeouts": {"after_plan": {"after": "1h", "strategy": "degrade"}}})


def test_policy_may_stop_is_the_requester_or_an_approver() -> None:
    config = PolicyConfig(approvers={"deploy": [BOB]})
    state, _ = _state(Risk.DEPLOY)
    state.pending = None
    policy = SafetyPolicy(config)
    assert policy.may_stop(state, ALICE) is None
    assert policy.may_stop(state, BOB) is None
    refusal = policy.may_stop(state, CAROL)
    assert refusal is not None and "steer or stop this run" in refusal.describe()


# --- the machine asks the policy -----------------------------------------------------------


def test_machine_sets_quorum_and_deadline_when_it_opens_a_gate() -> None:
    config = PolicyConfig(
        approvers={"deploy": [BOB, CAROL]},
        quorum={"deploy": 2},
        timeouts={"before_risky_step": TimeoutRule(after=600, strategy="cancel")},
    )
    state, effects = _run([_step("ship", Risk.DEPLOY)], SafetyPolicy(config))
    review = state.pending
    assert review is not None and review.anchor == "before_risky_step"
    assert review.quorum == 2 and review.deadline == review.created_at + 600 and review.strategy == "cancel"
    assert effects == [AskHuman(review=review)]


def test_machine_counts_the_quorum_and_runs_only_on_the_last_approval() -> None:
    policy = SafetyPolicy(PolicyConfig(approvers={"deploy": [BOB, CAROL]}, quorum={"deploy": 2}))
    state, _ = _run([_step("ship", Risk.DEPLOY)], policy)
    state, effects = _decide(state, Approve(), BOB, policy)
    assert state.pending is not None and [a.by for a in state.pending.approvals] == [BOB]
    assert effects == [Notify(text=f"Approved by {mention(BOB)}; 1 more approval needed.")]
    review = state.pending.id
    state, effects = _decide(state, Approve(), CAROL, policy)
    assert effects[0] == CloseReview(review_id=review, by=CAROL, answer={"kind": "approve", "remember": False})
    assert effects[1:] == [RunStep(number=1)]


def test_machine_refuses_an_answer_on_a_gate_before_counting_it() -> None:
    """A forged ``tandem.answer`` with ``answer: true`` on a quorum deploy gate counts for nothing."""
    policy = SafetyPolicy(PolicyConfig(approvers={"deploy": [BOB, CAROL]}, quorum={"deploy": 2}))
    state, _ = _run([_step("ship", Risk.DEPLOY)], policy)
    with pytest.raises(InvalidDecision, match="not a question"):
        _decide(state, Answer(value=True), BOB, policy)
    assert state.pending is not None and state.pending.approvals == []


@pytest.mark.parametrize(("risk", "runs"), [(Risk.WRITE, True), (Risk.EXEC, False), (Risk.DEPLOY, False)])
def test_machine_free_text_opens_gates_only_up_to_write(risk: Risk, runs: bool) -> None:
    policy = SafetyPolicy()
    state, _ = _run([_step("act", risk)], policy)
    reading = Reading(intent="approve", confidence=0.95)
    if runs:
        state, effects = _decide(state, Approve(), ALICE, policy, reading)
        assert RunStep(number=1) in effects
        return
    with pytest.raises(UseTheButton, match=f"A {risk.label} step is approved with its own Approve button") as err:
        _decide(state, Approve(), ALICE, policy, reading)
    assert state.pending is not None and err.value.review_id == state.pending.id


def test_machine_never_applies_an_unreadable_reading() -> None:
    policy = SafetyPolicy()
    state, _ = _run([_step("ship", Risk.DEPLOY, service="api")], policy)
    from agent.models import Correct

    guess = Correct(intent="retry_step", target_step=1, feedback="no, do NOT deploy this")
    with pytest.raises(NeedsClarification):
        _decide(state, guess, ALICE, policy, Reading(intent="retry_step", confidence=1.0, fallback=True))


def test_machine_refuses_always_allow_under_a_quorum_and_counts_nothing() -> None:
    policy = SafetyPolicy(PolicyConfig(approvers={"exec": [BOB, CAROL]}, quorum={"exec": 2}))
    state, _ = _run([_step("restart", Risk.EXEC)], policy, channel=True)
    assert isinstance(state.inflight, MatchRule)
    state, _ = machine.transition(state, RuleChecked(number=1, **_at()), policy)
    with pytest.raises(InvalidDecision, match="needs 2 approvals here, so it cannot be always-allowed"):
        _decide(state, Approve(remember=True), BOB, policy)
    assert state.pending is not None and state.pending.approvals == []


def test_machine_stores_the_rule_with_the_approval_that_made_it() -> None:
    policy = SafetyPolicy()
    state, _ = _run([_step("restart", Risk.EXEC)], policy, channel=True)
    state, _ = machine.transition(state, RuleChecked(number=1, **_at()), policy)
    state, effects = _decide(state, Approve(remember=True), ALICE, policy)
    (added,) = [e for e in effects if isinstance(e, AddRule)]
    assert added.rule.tool == "restart" and added.rule.channel == "C0OPS" and added.rule.created_by == ALICE
    assert RunStep(number=1) in effects


@pytest.mark.parametrize(
    ("config", "risk", "asked"),
    [
        (PolicyConfig(), Risk.EXEC, False),  # a rule answers it
        (PolicyConfig(), Risk.DEPLOY, True),  # never for deploys, even if a rule was stored
        (PolicyConfig(approvers={"exec": [BOB, CAROL]}, quorum={"exec": 2}), Risk.EXEC, True),  # quorum since
    ],
)
def test_machine_re_checks_a_standing_rule_every_time(config: PolicyConfig, risk: Risk, asked: bool) -> None:
    policy = SafetyPolicy(config)
    state, effects = _run([_step("restart", risk)], policy, channel=True)
    assert effects == [MatchRule(number=1)]
    rule = Rule(id="r1", channel="C0OPS", tool="restart", created_by=ALICE, created_at=0)
    state, effects = machine.transition(state, RuleChecked(number=1, rule=rule, **_at()), policy)
    if asked:
        assert state.pending is not None and state.pending.anchor == "before_risky_step"
        assert state.plan[0].approved_digest is None
    else:
        assert effects == [RunStep(number=1)] and state.plan[0].approved_by == "rule:r1"


def test_machine_terminal_run_goes_straight_to_the_gate() -> None:
    state, effects = _run([_step("restart", Risk.EXEC)], SafetyPolicy())
    assert state.pending is not None and state.pending.anchor == "before_risky_step"


def _due(state: RunState) -> TimedOut:
    assert state.pending is not None and state.pending.deadline is not None
    return TimedOut(review_id=state.pending.id, at=state.pending.deadline + 1, nonce="late0000")


def test_machine_gate_deadline_with_a_stored_use_default_pauses() -> None:
    """A review stored by an older release with ``use_default`` on a gate still never runs on its own."""
    policy = SafetyPolicy()
    state, _ = _run([_step("write_it", Risk.WRITE)], policy)
    assert state.pending is not None
    state.pending.deadline, state.pending.strategy, state.pending.default = 1500.0, "use_default", "approve"
    state, effects = machine.transition(state, _due(state), policy)
    assert state.pending is not None and state.pending.stale and state.plan[0].status == "pending"
    assert not any(isinstance(e, RunStep) for e in effects)


def test_machine_degrade_skips_gated_steps_and_runs_the_read_only_rest() -> None:
    config = PolicyConfig(timeouts={"before_risky_step": TimeoutRule(after=60, strategy="degrade")})
    policy = SafetyPolicy(config)
    steps = [
        _step("look", Risk.READ),
        _step("restart", Risk.EXEC),
        _step("logs", Risk.READ),
        _step("ship", Risk.DEPLOY),
    ]
    state, effects = _run(steps, policy)
    assert effects == [RunStep(number=1)]
    state, _ = machine.transition(state, StepFinished(number=1, ok=True, result="ok", **_at()), policy)
    assert state.pending is not None and state.pending.step == 2
    gate = state.pending.id
    state, effects = machine.transition(state, _due(state), policy)
    assert effects[0] == CloseReview(
        review_id=gate, by="tandem (timeout)", answer={"kind": "timeout", "action": "degrade"}
    )
    assert [s.status for s in state.plan] == ["done", "skipped", "running", "skipped"]
    assert effects[-1] == RunStep(number=3)
    assert any("step 2 (restart), step 4 (ship)" in note for note in state.output_notes)


@pytest.mark.parametrize(("risk", "asks"), [(Risk.READ, False), (Risk.WRITE, True)])
def test_machine_recovery_asks_by_the_policy_whatever_the_threshold(risk: Risk, asks: bool) -> None:
    policy = SafetyPolicy()
    state, _ = _run([_step("act", risk)], policy, threshold=Risk.DEPLOY)
    assert isinstance(state.inflight, RunStep), "below the threshold it runs without a gate"
    state, effects = machine.transition(state, Recovered(**_at()), policy)
    assert (state.pending is not None and state.pending.anchor == "recovery") is asks


@pytest.mark.parametrize(
    ("config", "actor", "groups", "may"),
    [
        (PolicyConfig(), CAROL, (), True),  # no approvers: anyone may make Tandem ask again
        (PolicyConfig(approvers={"exec": [BOB]}), ALICE, (), True),  # who set it
        (PolicyConfig(approvers={"exec": [BOB]}), BOB, (), True),  # an approver
        (PolicyConfig(approvers={"exec": ["S0OPS"]}), CAROL, ("S0OPS",), True),  # a member of an approver group
        (PolicyConfig(approvers={"exec": [BOB]}), CAROL, (), False),
    ],
)
def test_policy_may_revoke_is_the_setter_or_an_approver(
    config: PolicyConfig, actor: str, groups: tuple[str, ...], may: bool
) -> None:
    rule = Rule(id="r1", channel="C0OPS", tool="restart", created_by=ALICE, created_at=0)
    assert SafetyPolicy(config).may_revoke(rule, actor, groups) is may


@pytest.mark.parametrize(
    ("config", "actor", "waits"),
    [
        (PolicyConfig(), ALICE, True),
        (PolicyConfig(), BOB, False),
        (PolicyConfig(approvers={"exec": [BOB]}), BOB, True),
        (PolicyConfig(approvers={"exec": [BOB]}), ALICE, False),  # no self-approval of an exec gate
    ],
)
def test_policy_waits_on_the_people_who_may_answer_the_gate(config: PolicyConfig, actor: str, waits: bool) -> None:
    state, _ = _state(Risk.EXEC)
    assert SafetyPolicy(config).waits_on(state, actor) is waits
