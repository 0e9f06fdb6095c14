"""Who may decide: requester / approver / outsider × risk level, self-approval, groups."""

from __future__ import annotations

import pytest

from agent import authz
from agent.config import PolicyConfig
from agent.models import (
    Approve,
    Cancel,
    Correct,
    Decision,
    Review,
    Risk,
    RunState,
    Step,
    Terminal,
)
from agent.policy import SafetyPolicy
from bot.origin import SlackThread
from feishu.origin import FeishuChat

REQUESTER, APPROVER, OUTSIDER, GROUPIE = "U0ALICE", "U0BOB", "U0CAROL", "U0DAVE"
CONFIG = PolicyConfig(approvers={"exec": [APPROVER], "deploy": [APPROVER, "S0OPS"]}, groups={"S0OPS": [GROUPIE]})


def gate(risk: Risk) -> tuple[RunState, Review]:
    step = Step(number=1, tool="t", risk=risk)
    review = Review(id="r", anchor="before_risky_step", step=1, created_at=0)
    state = RunState(id="x", task="t", requester=REQUESTER, created_at=0, updated_at=0, plan=[step], pending=review)
    return state, review


@pytest.mark.parametrize(
    ("config", "risk", "actor", "allowed"),
    [
        # no approvers configured: the requester decides everything, nobody else
        (PolicyConfig(), Risk.WRITE, REQUESTER, True),
        (PolicyConfig(), Risk.DEPLOY, REQUESTER, True),
        (PolicyConfig(), Risk.DEPLOY, APPROVER, False),
        (PolicyConfig(), Risk.DEPLOY, OUTSIDER, False),
        # below the lowest configured level: requester and approvers
        (CONFIG, Risk.WRITE, REQUESTER, True),
        (CONFIG, Risk.WRITE, APPROVER, True),
        (CONFIG, Risk.WRITE, OUTSIDER, False),
        # at and above a configured level: only its approvers
        (CONFIG, Risk.EXEC, REQUESTER, False),
        (CONFIG, Risk.EXEC, APPROVER, True),
        (CONFIG, Risk.EXEC, GROUPIE, False),
        (CONFIG, Risk.DEPLOY, REQUESTER, False),
        (CONFIG, Risk.DEPLOY, APPROVER, True),
        (CONFIG, Risk.DEPLOY, GROUPIE, True),
        (CONFIG, Risk.DEPLOY, OUTSIDER, False),
    ],
)
def test_approve_authorization_table(config: PolicyConfig, risk: Risk, actor: str, allowed: bool) -> None:
    state, review = gate(risk)
    assert (authz.check(config, state, review, actor, Approve()) is None) is allowed


def test_requester_may_approve_own_deploy_only_when_configured() -> None:
    config = PolicyConfig(approvers={"deploy": [REQUESTER, APPROVER]})
    state, review = gate(Risk.DEPLOY)
    refusal = authz.check(config, state, review, REQUESTER, Approve())
    assert refusal is not None and "requesters approve their own run" in refusal.describe()
    allowing = config.model_copy(update={"allow_self_approval": True})
    assert authz.check(allowing, state, review, REQUESTER, Approve()) is None


@pytest.mark.parametrize("decision", [Cancel(), Correct(intent="replan", feedback="no")])
def test_requester_may_always_stop_or_correct_outsider_may_not(decision: Decision) -> None:
    state, review = gate(Risk.DEPLOY)
    assert authz.check(CONFIG, state, review, REQUESTER, decision) is None
    assert authz.check(CONFIG, state, review, APPROVER, decision) is None
    assert authz.check(CONFIG, state, review, OUTSIDER, decision) is not None


def test_refusal_names_who_may_approve() -> None:
    state, review = gate(Risk.DEPLOY)
    refusal = authz.check(CONFIG, state, review, OUTSIDER, Approve())
    assert refusal is not None
    text = refusal.describe(user=lambda u: f"<@{u}>", group=lambda g: f"members of <!subteam^{g}>")
    assert text == "Only <@U0BOB> or members of <!subteam^S0OPS> can approve deploy steps. Nothing changed."


def test_group_membership_from_the_caller_counts() -> None:
    state, review = gate(Risk.DEPLOY)
    assert authz.check(CONFIG, state, review, "U0EVE", Approve(), actor_groups=["S0OPS"]) is None


def test_assignees_of_a_handoff_are_the_only_ones_who_answer() -> None:
    state, review = gate(Risk.READ)
    review = review.model_copy(update={"anchor": "handoff", "assignees": [OUTSIDER]})
    assert authz.check(PolicyConfig(), state, review, OUTSIDER, Approve()) is None
    assert authz.check(PolicyConfig(), state, review, REQUESTER, Approve()) is not None


BOTH = PolicyConfig(approvers={"exec": ["U0BOB", "ou_bob"]})


@pytest.mark.parametrize(
    ("origin", "named"),
    [
        (SlackThread(channel_id="C0OPS", thread_ts="1.5"), ("U0BOB",)),
        (FeishuChat(chat_id="oc_ops", root_id="om_1"), ("ou_bob",)),
        (Terminal(), ("U0BOB", "ou_bob")),
    ],
)
def test_who_a_gate_waits_on_is_named_on_the_runs_own_platform(
    origin: SlackThread | FeishuChat | Terminal, named: tuple[str, ...]
) -> None:
    state, review = gate(Risk.EXEC)
    state = state.model_copy(update={"origin": origin})
    refusal = authz.check(BOTH, state, review, OUTSIDER, Approve())
    assert refusal is not None and refusal.users == named
    assert SafetyPolicy(BOTH).waiting_on(state, review) == named


def test_a_policy_naming_only_another_platform_still_says_who_may() -> None:
    state, review = gate(Risk.EXEC)
    state = state.model_copy(update={"origin": FeishuChat(chat_id="oc_ops", root_id="om_1")})
    refusal = authz.check(CONFIG, state, review, OUTSIDER, Approve())
    assert refusal is not None and refusal.users == (APPROVER,)
