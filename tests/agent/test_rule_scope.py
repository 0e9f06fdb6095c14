"""Always-allow rules are scoped to the call: the tool with the same target values (machine, policy, use cases)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from agent import machine
from agent.config import PolicyConfig, RulesRule
from agent.models import (
    AddRule,
    Approve,
    Cancel,
    Correct,
    Decided,
    GateDecision,
    Notify,
    PlannedStep,
    PlanProposed,
    Policy,
    ProposedStep,
    Reading,
    Risk,
    Rule,
    RuleChecked,
    RunState,
    Step,
    StepFinished,
    SuspendRule,
    TakeoverReading,
    call_scope,
    target_of,
)
from agent.policy import SafetyPolicy
from agent.ports import ClassifyContext
from agent.review_view import review_view
from agent.runtime import Runtime
from agent.tools import ToolRegistry, tool
from agent.usecases import Applied, NotApplied, Refused, RuleWidened, UseCases
from bot.origin import SlackThread
from storage.facade import AsyncStore

BOB, CAROL, DAVE = "U0BOB", "U0CAROL", "U0DAVE"
POLICY = SafetyPolicy()
_n = iter(range(1, 10_000))


def _at() -> dict[str, Any]:
    n = next(_n)
    return {"at": 1000.0 + n, "nonce": f"n{n:04d}xxxxxxxx"}


def _planned(params: dict[str, Any], tool_name: str = "restart_service", risk: Risk = Risk.EXEC) -> RunState:
    fields = {
        "policy": Policy(
            anchors=frozenset({"after_risky_step"}), dynamic_anchors=False, after_risky_step="any_follows"
        ),
        "channel": {"channel": "C0OPS", "thread_ts": "1"},
    }
    state, _ = machine.start("r1", "restart", BOB, 1000.0, **fields)
    step = ProposedStep(tool=tool_name, params=params, reason="r", risk=risk)
    logs = ProposedStep(tool="read_logs", params={}, reason="r", risk=Risk.READ)
    state, _ = machine.transition(state, PlanProposed(steps=[step, logs], **_at()), POLICY)
    return state


def _checked(params: dict[str, Any], rule: Rule | None) -> RunState:
    state, _ = machine.transition(_planned(params), RuleChecked(number=1, rule=rule, **_at()), POLICY)
    return state


def _rule(target: dict[str, Any] | None, tool_name: str = "restart_service") -> Rule:
    return Rule(id="ru1", channel="C0OPS", tool=tool_name, created_by=BOB, created_at=1.0, target=target)


PAYMENTS = _rule({"service": "payments"})


# --- what a rule covers ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "target"),
    [
        ({"service": "payments"}, {"service": "payments"}),
        ({"service": "payments", "replicas": 4}, {"service": "payments"}),  # quantities are not targets
        ({"channel": "#ops", "text": "restarting payments now"}, {"channel": "#ops"}),  # prose is not
        ({"host": "db-1", "force": True, "hosts": ["a"]}, {"host": "db-1"}),
        ({"replicas": 4}, {}),
    ],
)
def test_target_of_a_call_keeps_only_values_that_name_a_thing(params: dict[str, Any], target: dict[str, Any]) -> None:
    assert target_of(params) == target


def test_call_scope_of_a_call_without_target_values_is_exactly_its_params() -> None:
    assert call_scope({"replicas": 4}) == {"replicas": 4}
    assert call_scope({"service": "payments", "replicas": 4}) == {"service": "payments"}


def test_rule_given_on_payments_does_not_let_restart_of_checkout_run_it_asks() -> None:
    state = _checked({"service": "checkout"}, PAYMENTS)
    assert state.pending is not None and state.pending.anchor == "before_risky_step"
    assert state.plan[0].status == "pending" and state.plan[0].approved_by is None


def test_rule_given_on_payments_lets_restart_of_payments_run_unasked() -> None:
    state = _checked({"service": "payments"}, PAYMENTS)
    assert state.pending is None and state.plan[0].status == "running"
    assert state.plan[0].approved_by == "rule:ru1" and state.plan[0].approved_scope == {"service": "payments"}


def test_tool_wide_rule_lets_every_target_run() -> None:
    state = _checked({"service": "checkout"}, _rule(None))
    assert state.pending is None and state.plan[0].approved_by == "rule:ru1"


@pytest.mark.parametrize(
    ("rule", "params", "applies"),
    [
        (_rule({"service": "payments"}, "scale_service"), {"service": "payments", "replicas": 9}, True),
        (_rule({"service": "payments"}, "scale_service"), {"service": "search", "replicas": 4}, False),
        (_rule({"replicas": 4}, "scale_all"), {"replicas": 4}, True),  # no target values: exactly its params
        (_rule({"replicas": 4}, "scale_all"), {"replicas": 40}, False),
        (PAYMENTS, {"service": "payments", "region": "eu-1"}, False),  # another target value: another target
    ],
)
def test_rule_applies_only_to_calls_in_its_scope(rule: Rule, params: dict[str, Any], applies: bool) -> None:
    state = _planned(params, rule.tool)
    assert POLICY.rule_applies(state, state.plan[0], rule) is applies


# --- making a rule ------------------------------------------------------------------------


def test_approve_with_always_allow_makes_a_rule_for_the_calls_targets_and_says_so() -> None:
    state = _checked({"service": "payments", "replicas": 4}, None)
    assert state.pending is not None
    view = review_view(state, state.pending, POLICY)
    assert view.always_label == "Always allow restart_service for payments here"
    event = Decided(review_id=state.pending.id, decision=Approve(remember=True), by=BOB, **_at())
    _, effects = machine.transition(state, event, POLICY)
    (added,) = [e.rule for e in effects if isinstance(e, AddRule)]
    assert (added.tool, added.target, added.channel) == ("restart_service", {"service": "payments"}, "C0OPS")
    told = [e.text for e in effects if isinstance(e, Notify)]
    assert f"From now on `restart_service` for payments runs without asking in this channel (set by ⟦@{BOB}⟧)." in told


# --- suspension names the scope -------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "named", "shape"),
    [
        (PAYMENTS, "`restart_service` for payments in this channel", "restart_service(service=payments)"),
        (_rule(None), "`restart_service` (every target) in this channel", None),
    ],
)
def test_correcting_a_step_a_rule_let_run_suspends_that_rule_naming_its_scope(
    rule: Rule, named: str, shape: str | None
) -> None:
    state = _checked({"service": "payments"}, rule)
    state, _ = machine.transition(state, StepFinished(number=1, ok=True, result="ok", **_at()), POLICY)
    assert state.pending is not None
    for decision in (Correct(intent="retry_step", feedback="canary first"), Cancel()):
        event = Decided(review_id=state.pending.id, decision=decision, by=CAROL, **_at())
        _, effects = machine.transition(state.model_copy(deep=True), event, POLICY)
        (suspended,) = [e.suspension for e in effects if isinstance(e, SuspendRule)]
        assert suspended.shape == shape
        assert any(
            f"The always-allow rule for {named} is suspended" in e.text for e in effects if isinstance(e, Notify)
        )


def test_offer_names_the_scope_it_would_allow() -> None:
    policy = SafetyPolicy(PolicyConfig(rules=RulesRule(offer_after=2)))
    history = [GateDecision(run_id=f"o{i}", by=BOB, at=900.0 - i, approved=True) for i in range(2)]
    state, _ = machine.transition(
        _planned({"service": "payments"}), RuleChecked(number=1, history=history, **_at()), policy
    )
    assert state.pending is not None and state.pending.offer is not None
    text = review_view(state, state.pending, policy).offer_text or ""
    assert "approved `restart_service(service=payments)` unchanged 2 times in a row here" in text
    assert text.endswith("stops asking for `restart_service` for payments in this channel.")


# --- the runtime finds the rule whose scope covers the step, and widening ------------------------

RAN: list[str] = []


@tool(risk=Risk.EXEC)
def bounce(service: str) -> str:
    """Restart a service."""
    RAN.append(service)
    return f"{service} restarted"


@tool(risk=Risk.DEPLOY)
def ship(service: str) -> str:
    """Deploy a service."""
    return service


TOOLS = ToolRegistry()
TOOLS.add_function(bounce)
TOOLS.add_function(ship)


class Brain:
    """Plans one bounce of the service the task names (its last word)."""

    async def plan(self, task: str, tools: ToolRegistry, **_: Any) -> list[ProposedStep]:
        return [ProposedStep(tool="bounce", params={"service": task.split()[-1]}, reason="r", risk=Risk.EXEC)]

    async def revise_step(self, task: str, step: Step, tools: ToolRegistry, **_: Any) -> dict[str, Any]:
        return step.params

    async def summarize(self, task: str, steps: list[Step], notes: list[str]) -> str:
        return "; ".join(str(s.result) for s in steps)

    async def refine(self, task: str, output: str, feedback: str, steps: list[Step]) -> str:
        return output

    async def classify(self, text: str, context: ClassifyContext) -> Reading:
        return Reading(intent="approve", reason="-", confidence=0.0, fallback=True)

    async def propose(self, instruction: str, task: str, steps: list[Step], tools: ToolRegistry) -> TakeoverReading:
        return TakeoverReading(kind="step", step=PlannedStep(tool="bounce", params={"service": "x"}))


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[AsyncStore]:
    RAN.clear()
    async with AsyncStore(tmp_path / "t.db") as s:
        yield s


def _usecases(store: AsyncStore, config: PolicyConfig | None = None) -> UseCases:
    runtime = Runtime(store, Brain(), TOOLS, policy=Policy(anchors=frozenset()), config=config or PolicyConfig())

    async def groups_of(user: str) -> Sequence[str]:
        return []

    return UseCases(runtime, store, groups_of)


WHERE = SlackThread(channel_id="C0OPS", thread_ts="1.0")


async def test_rule_made_on_payments_asks_again_for_checkout_through_the_runtime(store: AsyncStore) -> None:
    uc = _usecases(store)
    first = await uc.runtime.start("bounce payments", BOB, origin=WHERE)
    assert first.pending is not None and first.pending.anchor == "before_risky_step"
    assert isinstance(await uc.approve_always(first.pending.id, BOB), Applied)
    again = await uc.runtime.start("bounce payments", BOB, origin=WHERE)
    assert again.status == "done" and again.plan[0].approved_by is not None
    other = await uc.runtime.start("bounce checkout", BOB, origin=WHERE)
    assert other.pending is not None and other.pending.anchor == "before_risky_step"
    assert RAN == ["payments", "payments"]


async def test_widen_rule_by_an_outsider_is_refused_and_by_an_approver_covers_every_target(store: AsyncStore) -> None:
    uc = _usecases(store, PolicyConfig(approvers={"exec": [BOB, DAVE]}))
    await store.add_rule(_rule({"service": "payments"}, "bounce"))
    refused = await uc.widen_rule("ru1", CAROL, "C0OPS")
    assert isinstance(refused, Refused) and refused.refusal.users == (BOB,)
    assert (await store.rules("C0OPS"))[0].target == {"service": "payments"}, "a refusal changes nothing"
    widened = await uc.widen_rule("ru1", DAVE, "C0OPS")
    assert isinstance(widened, RuleWidened) and widened.rule.tool_wide and widened.rule.widened_by == DAVE
    other = await uc.runtime.start("bounce checkout", BOB, origin=WHERE)
    assert other.status == "done" and RAN == ["checkout"]
    again = await uc.widen_rule("ru1", DAVE, "C0OPS")
    assert isinstance(again, NotApplied) and "already covers every target" in again.message


@pytest.mark.parametrize(
    ("tool_name", "config", "why"),
    [
        ("ship", PolicyConfig(), "deploys"),
        ("bounce", PolicyConfig(approvers={"exec": [BOB, DAVE]}, quorum={"exec": 2}), "several approvals"),
    ],
)
async def test_widen_rule_of_a_deploy_or_under_a_quorum_is_refused_and_changes_nothing(
    store: AsyncStore, tool_name: str, config: PolicyConfig, why: str
) -> None:
    uc = _usecases(store, config)
    await store.add_rule(_rule({"service": "payments"}, tool_name))
    outcome = await uc.widen_rule("ru1", BOB, "C0OPS")
    assert isinstance(outcome, NotApplied) and why in outcome.message
    assert (await store.rules("C0OPS"))[0].target == {"service": "payments"}
