"""Feishu cards: card JSON 2.0 from the channel-neutral review view, for every anchor."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent.config import PolicyConfig
from agent.models import AlwaysOffer, Anchor, GateDecision, Handoff, LessonUse, Policy, Reading, Risk
from agent.models.elicitation import Elicitation
from agent.policy import SafetyPolicy
from agent.review_view import review_view
from feishu.cards import clarify_card, review_card, run_card
from feishu.elements import CARD_LIMIT, choices_of, decided, is_live, size
from feishu.origin import FeishuChat
from feishu.read_as import read_as_card
from tests.blocks.states import ANCHORS, long_plan, reviewing, state, step

CHAT = FeishuChat(chat_id="oc_ops", root_id="om_card")
EXPECTED: dict[str, set[str]] = {
    "after_plan": {"approve", "cancel", "request_changes"},
    "before_risky_step": {"approve", "approve_always", "cancel", "request_changes"},
    "after_risky_step": {"approve", "cancel", "request_changes"},
    "before_result": {"approve", "cancel", "request_changes"},
    "step_failed": {"approve", "cancel", "request_changes"},
    "recovery": {"approve", "cancel", "request_changes"},
    "handoff": {"answer", "cancel"},
    "takeover": {"instruct", "finish", "hand_back", "cancel"},
    "takeover_step": {"approve", "cancel", "request_changes"},
}


def text_of(card: dict[str, Any]) -> str:
    return json.dumps(card, ensure_ascii=False)


@pytest.mark.parametrize("anchor", ANCHORS)
def test_review_card_every_anchor_offers_the_views_choices(anchor: Anchor) -> None:
    run, rv = reviewing(anchor, requester="ou_alice", origin=CHAT)
    view = review_view(run, rv, SafetyPolicy())
    card = review_card(view)
    assert card["schema"] == "2.0" and card["config"]["update_multi"] is True
    assert set(choices_of(card)) == EXPECTED[anchor] == set(view.choices)
    assert is_live(card)
    assert all(isinstance(b["value"], dict) and b["value"]["review"] == "rv1" for b in _behaviors(card))


def _behaviors(card: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            found.extend(node.get("behaviors", []))
            for inner in node.values():
                walk(inner)
        elif isinstance(node, list):
            for inner in node:
                walk(inner)

    walk(card)
    return found


def test_review_card_risky_gate_names_who_it_waits_on_as_mentions() -> None:
    config = PolicyConfig.model_validate({"approvers": {"exec": ["ou_bob"]}})
    run, rv = reviewing("before_risky_step", requester="ou_alice")
    card = review_card(review_view(run, rv, SafetyPolicy(config)))
    assert "Waiting on <at id=ou_bob></at>" in text_of(card)
    assert "restart_service" in text_of(card) and "exec" in text_of(card)


def test_review_card_request_changes_is_a_form_with_feedback_and_intent() -> None:
    run, rv = reviewing("after_plan")
    card = review_card(review_view(run, rv, SafetyPolicy()))
    form = next(e for e in card["body"]["elements"] if e["tag"] == "form")
    names = [e.get("name") for e in form["elements"]]
    assert names == ["feedback", "intent", "request_changes"]
    submit = form["elements"][-1]
    assert submit["form_action_type"] == "submit"
    assert submit["behaviors"][0]["value"] == {"action": "request_changes", "review": "rv1", "run": "run-1"}
    intents = [o["value"] for o in form["elements"][1]["options"]]
    assert "refine_output" not in intents and "replan" in intents


def test_review_card_without_always_allow_when_the_policy_refuses_it() -> None:
    run, rv = reviewing("before_risky_step", origin=CHAT)
    run.plan[1].risk = Risk.DEPLOY
    card = review_card(review_view(run, rv, SafetyPolicy()))
    assert "approve_always" not in choices_of(card) and "approve" in choices_of(card)


@pytest.mark.parametrize(
    ("task", "label"),
    [
        ("restart payments", "Always allow restart_service for payments, eu-west-1 here"),
        ("重启支付服务", "在此始终允许 restart_service（payments, eu-west-1）"),
    ],
)
def test_review_card_always_allow_names_the_targets_it_covers(task: str, label: str) -> None:
    run, rv = reviewing("before_risky_step", origin=CHAT, task=task)
    assert label in text_of(review_card(review_view(run, rv, SafetyPolicy())))


def test_review_card_chinese_task_gets_chinese_chrome() -> None:
    run, rv = reviewing("after_plan", task="重启支付服务")
    card = review_card(review_view(run, rv, SafetyPolicy()))
    assert card["header"]["title"]["content"] == "计划审核"
    assert "批准" in text_of(card) and "Approve" not in text_of(card)


def test_review_card_untrusted_text_cannot_mention_everyone() -> None:
    run, rv = reviewing("after_plan", task="restart <at id=all></at> now")
    card = review_card(review_view(run, rv, SafetyPolicy()))
    assert "<at id=all>" not in text_of(card) and "&lt;at id=all&gt;" in text_of(card)


@pytest.mark.parametrize("anchor", ANCHORS)
def test_review_card_huge_plan_and_output_stay_under_the_size_limit(anchor: Anchor) -> None:
    run, rv = reviewing(anchor, plan=long_plan(40, 5000), output="o" * 200_000)
    card = review_card(review_view(run, rv, SafetyPolicy()))
    assert size(card) <= CARD_LIMIT
    assert "more chars" in text_of(card) or anchor == "handoff"  # a question shows neither plan nor output


def test_decided_keeps_content_drops_controls_adds_the_line() -> None:
    run, rv = reviewing("before_risky_step")
    card = review_card(review_view(run, rv, SafetyPolicy()))
    done = decided(card, "✅ Step 2 approved by <at id=ou_bob></at>")
    assert not is_live(done) and choices_of(done) == []
    assert "restart_service" in text_of(done) and done["body"]["elements"][-1]["content"].endswith("</at>")


def test_run_card_shows_live_status_plan_and_outcome() -> None:
    working = run_card(state("executing", requester="ou_alice"), status="running step 2 of 2")
    assert "Executing" in text_of(working) and "running step 2 of 2" in text_of(working)
    assert "<at id=ou_alice></at>" in text_of(working) and not is_live(working)
    done = run_card(state("done", output="all good"), ["✅ Plan approved by <at id=ou_bob></at>"])
    assert done["header"]["template"] == "green" and "all good" in text_of(done) and "Plan approved" in text_of(done)


def test_clarify_card_at_an_exec_gate_offers_no_approve() -> None:
    reading = Reading(intent="approve", confidence=0.4)
    gate = clarify_card(reading, "rv1", "run-1", "ok maybe", "before_risky_step", "en", can_approve=False)
    assert "approve" not in [b["value"]["intent"] for b in _behaviors(gate)]
    plan = clarify_card(reading, "rv1", "run-1", "ok maybe", "after_plan", "en", can_approve=True)
    assert [b["value"]["intent"] for b in _behaviors(plan)] == ["approve", "replan", "retry_step", "cancel"]


def test_read_as_card_offers_not_what_i_meant() -> None:
    card = read_as_card(Reading(intent="replan", reason="restart checkout"), "rv1", "run-1", "en")
    assert "Change the plan" in text_of(card) and choices_of(card) == ["override"]


def test_review_card_with_an_always_offer_shows_its_history_and_the_choice() -> None:
    run, rv = reviewing("before_risky_step", requester="ou_alice", origin=CHAT)
    approvals = [GateDecision(run_id=f"r{i}", by="ou_bob", at=1_700_000_000.0 - i, approved=True) for i in range(5)]
    rv.offer = AlwaysOffer(shape="restart_service(region=…, service=…)", approvals=approvals)
    card = review_card(review_view(run, rv, SafetyPolicy()))
    text = text_of(card)
    assert "approved `restart_service(region=…, service=…)` unchanged 5 times in a row here" in text
    assert "<at id=ou_bob></at>" in text and "approve_always" in choices_of(card)
    run.plan[1].risk = Risk.DEPLOY
    assert "unchanged" not in text_of(review_card(review_view(run, rv, SafetyPolicy())))


def test_result_card_without_a_plan_review_and_run_card_name_the_lessons() -> None:
    use = LessonUse(id="l1", line="use level=warning in `read_logs` for payments", by="ou_a", at=1_700_000_000.0)
    s, rv = reviewing("before_result", lessons_applied=[use], anchors=frozenset({"before_result"}))
    card = review_card(review_view(s, rv, SafetyPolicy()))
    forget = {"action": "forget_lesson", "review": rv.id, "run": s.id, "lesson": "l1"}
    assert "level=warning" in text_of(card) and forget in [b["value"] for b in _behaviors(card)]
    gone = use.model_copy(update={"forgotten_by": "ou_b", "forgotten_at": 1_700_000_005.0})
    shown = run_card(s.model_copy(update={"lessons_applied": [gone]}))
    assert "Forgotten by <at id=ou_b></at>" in text_of(shown) and "forget_lesson" not in json.dumps(shown)


def test_plan_card_says_whom_the_restart_still_asks_and_who_approves_it_with_the_plan() -> None:
    config = PolicyConfig.model_validate({"approvers": {"exec": ["ou_bob"]}})
    plan = [step(1, risk=Risk.READ, tool="check_health"), step(2)]
    run = state(plan=plan, requester="ou_alice", origin=CHAT, policy=Policy(merge_gate=True))
    _, rv = reviewing("after_plan")
    card = text_of(review_card(review_view(run, rv, SafetyPolicy(config))))
    assert "this plan also approves step 2 `restart_service` `service=payments, region=eu-west-1`" in card
    assert "step 2 still asks <at id=ou_bob></at> right before it runs" in card


def test_result_card_shows_what_each_risky_step_did() -> None:
    run, rv = reviewing("before_result", plan=[step(1, status="done", result="Restarted payments")])
    card = text_of(review_card(review_view(run, rv, SafetyPolicy())))
    assert "Step 1 restart_service (exec) ran: Restarted payments" in card


def test_review_card_mcp_url_question_opens_its_link_beside_yes_and_no() -> None:
    url = "https://auth.example.com/authorize?account=acme"
    asked = Elicitation(server="deploys", key="sign-in", mode="url", url=url, kind="boolean")
    question = Handoff(prompt="Sign in to acme", input_type="confirm", elicitation=asked)
    run, rv = reviewing("handoff", requester="ou_alice", origin=CHAT)
    rv.handoff = question
    card = review_card(review_view(run, rv, SafetyPolicy()))
    assert {"type": "open_url", "default_url": url} in _behaviors(card)
    assert "Sign in to acme" in text_of(card) and {"answer", "cancel"} <= set(choices_of(card))
