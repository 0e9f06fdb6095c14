"""``[rules] always_allow`` in the policy file: validated with one line naming the key, and applied to its scope."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent import machine
from agent.config import load_config
from agent.config_rules import check_tools
from agent.errors import PolicyError
from agent.models import (
    Cancel,
    Decided,
    Notify,
    PlanProposed,
    Policy,
    ProposedStep,
    Risk,
    RuleChecked,
    RunState,
    StepFinished,
    SuspendRule,
)
from agent.policy import SafetyPolicy
from agent.tools import load_tools

RULES = """
[rules]
always_allow = [
  { channel = "C0OPS", tool = "restart_service", service = "payments" },
  { channel = "oc_ops", tool = "drop_cache", every_target = true },
]
"""


def _load(tmp_path: Path, text: str) -> SafetyPolicy:
    file = tmp_path / "tandem.toml"
    file.write_text(text)
    return SafetyPolicy(load_config(file, {}))


def test_always_allow_entries_become_rules_of_their_channel_with_their_scope(tmp_path: Path) -> None:
    policy = _load(tmp_path, RULES)
    (payments,) = policy.configured_rules("C0OPS")
    assert (payments.id, payments.tool, payments.target, payments.from_policy) == (
        "policy:1",
        "restart_service",
        {"service": "payments"},
        True,
    )
    (cache,) = policy.configured_rules("oc_ops")
    assert cache.tool_wide and cache.covers("drop_cache", {"service": "search"})
    assert policy.configured_rules("C0OTHER") == [] and policy.configured_rules(None) == []


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ('{ channel = "C0OPS", tool = "restart_service" }', "rules.always_allow.0: name what restart_service"),
        ('{ channel = "C0OPS", tool = "scale_service", replicas = 4 }', "rules.always_allow.0: replicas = 4 is not"),
        ('{ channel = "C0OPS", tool = "send_message", text = "hello there" }', 'text = "hello there" is not'),
        ('{ channel = "ops", tool = "restart_service", service = "payments" }', 'channel "ops" is not a channel id'),
        ('{ channel = "C0OPS", tool = "drop_cache", every_target = true, service = "x" }', "leave out service"),
        ('{ tool = "restart_service", service = "payments" }', "rules.always_allow.0.channel: Field required"),
    ],
)
def test_bad_always_allow_entry_is_one_line_naming_the_key(tmp_path: Path, entry: str, message: str) -> None:
    with pytest.raises(PolicyError, match=message) as raised:
        _load(tmp_path, f"[rules]\nalways_allow = [{entry}]\n")
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(
    ("tool", "message"),
    [("deploy_service", "rules.always_allow.0.tool: deploy_service deploys"), ("nope", 'no tool "nope"')],
)
def test_always_allow_of_a_deploy_or_unknown_tool_stops_the_start(tmp_path: Path, tool: str, message: str) -> None:
    policy = _load(tmp_path, f'[rules]\nalways_allow = [{{ channel = "C0OPS", tool = "{tool}", every_target = true }}]')
    with pytest.raises(PolicyError, match=message):
        check_tools(policy.config.rules.always_allow, load_tools(["demo.tools"]))


def _run(policy: SafetyPolicy, service: str) -> RunState:
    fields = {
        "policy": Policy(anchors=frozenset({"after_risky_step"}), dynamic_anchors=False, after_risky_step="any_follows")
    }
    state, _ = machine.start("r1", "restart", "U0BOB", 1.0, channel={"channel": "C0OPS", "thread_ts": "1"}, **fields)
    steps = [
        ProposedStep(tool="restart_service", params={"service": service}, reason="r", risk=Risk.EXEC),
        ProposedStep(tool="read_logs", params={}, reason="r", risk=Risk.READ),
    ]
    state, _ = machine.transition(state, PlanProposed(steps=steps, at=2.0, nonce="n2"), policy)
    (rule,) = policy.configured_rules("C0OPS")
    state, _ = machine.transition(state, RuleChecked(number=1, rule=rule, at=3.0, nonce="n3"), policy)
    return state


def test_policy_file_rule_covers_its_target_only_and_a_rejection_keeps_it_saying_so(tmp_path: Path) -> None:
    policy = _load(tmp_path, RULES)
    asks = _run(policy, "checkout")
    assert asks.pending is not None and asks.pending.anchor == "before_risky_step"
    ran = _run(policy, "payments")
    assert ran.pending is None and ran.plan[0].approved_by == "rule:policy:1"
    done, _ = machine.transition(ran, StepFinished(number=1, ok=True, result="ok", at=4.0, nonce="n4"), policy)
    assert done.pending is not None
    event = Decided(review_id=done.pending.id, decision=Cancel(), by="U0CAROL", at=5.0, nonce="n5")
    _, effects = machine.transition(done, event, policy)
    assert not [e for e in effects if isinstance(e, SuspendRule)], "the file's rule is not Tandem's to suspend"
    told = " ".join(e.text for e in effects if isinstance(e, Notify))
    assert "policy file's always-allow rule for `restart_service` for payments let run" in told
    assert "stays in force until the policy file's [rules] always_allow changes" in told
