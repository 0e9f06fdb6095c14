"""Feishu cards say what Slack's say, from the same neutral view: a plan's reasons, a gate's step said once."""

from __future__ import annotations

import json

from agent.models import Risk
from agent.policy import SafetyPolicy
from agent.review_view import review_view
from feishu.cards import review_card
from tests.blocks.states import reviewing, step


def test_plan_card_shows_each_steps_reason() -> None:
    plan = [step(1, tool="check_health", risk=Risk.READ, reason="See whether payments answers."), step(2)]
    run, rv = reviewing("after_plan", plan=plan)
    shown = json.dumps(review_card(review_view(run, rv, SafetyPolicy())), ensure_ascii=False)
    assert "See whether payments answers." in shown and "Pods are crash-looping after the config push." in shown


def test_gate_card_says_which_step_of_the_whole_plan_once() -> None:
    plan = [step(1, tool="check_health", risk=Risk.READ, status="done"), step(2), step(3, tool="read_logs")]
    run, rv = reviewing("before_risky_step", plan=plan)
    shown = json.dumps(review_card(review_view(run, rv, SafetyPolicy())), ensure_ascii=False)
    assert "Step 2 of 3: `restart_service` · 🟠 exec" in shown and "**2.**" not in shown
