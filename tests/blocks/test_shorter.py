"""The shorter forms of a review Slack refused: a short message with the same controls, and text alone."""

from __future__ import annotations

import pytest

from agent.config import PolicyConfig
from agent.models import Anchor
from agent.policy import SafetyPolicy
from agent.review_view import review_view
from blocks import ids, review_blocks
from blocks.shorter import SHORTENED, TEXT_MAX, review_in
from tests.blocks.states import ANCHORS, action_elements, all_text, assert_valid_message, long_plan, reviewing

BOB = PolicyConfig.model_validate({"approvers": {"exec": ["U0BOB"]}})


@pytest.mark.parametrize("anchor", ANCHORS)
def test_short_form_of_any_review_is_valid_keeps_its_controls_and_offers_details(anchor: Anchor) -> None:
    state, rv = reviewing(anchor, plan=long_plan(60, 3000))
    safety = SafetyPolicy(BOB)
    full = review_blocks(state, rv, safety)
    blocks, text = review_in("short", review_view(state, rv, safety), full)
    assert_valid_message(blocks, text)
    assert SHORTENED in all_text(blocks)
    kept = {(e["action_id"], e.get("value")) for e in action_elements(blocks)}
    assert {(e["action_id"], e.get("value")) for e in action_elements(full)} <= kept
    assert ids.DETAILS in {action for action, _ in kept}


def test_short_form_of_a_sixty_step_plan_lists_what_fits_and_counts_the_rest() -> None:
    state, rv = reviewing("after_plan", plan=long_plan(200, 3000))
    blocks, _ = review_in("short", review_view(state, rv, SafetyPolicy()), review_blocks(state, rv))
    said = all_text(blocks)
    assert "1. `tool_number_1`" in said and "more · *Show details* has every one" in said


def test_text_form_of_an_exec_gate_says_a_reply_cannot_approve_and_how_to_and_keeps_mentions() -> None:
    state, rv = reviewing("before_risky_step")
    blocks, text = review_in("text", review_view(state, rv, SafetyPolicy(BOB)), review_blocks(state, rv))
    assert blocks == []
    assert "A reply cannot approve this step: `tandem answer run-1 --review rv1 --approve`" in text
    assert "Waiting on <@U0BOB>" in text and "restart_service" in text and "service=payments" in text
    assert len(text) <= TEXT_MAX


def test_text_form_of_a_plan_says_a_reply_in_the_thread_answers_it() -> None:
    state, rv = reviewing("after_plan", plan=long_plan(200, 3000))
    _, text = review_in("text", review_view(state, rv, SafetyPolicy()), review_blocks(state, rv))
    assert "reply in this thread: *approve*, *cancel*, or say what to change" in text
    assert len(text) <= TEXT_MAX


def test_text_form_posted_outside_the_run_thread_says_to_reply_in_the_run_thread() -> None:
    state, rv = reviewing("after_plan")
    view = review_view(state, rv, SafetyPolicy())
    _, text = review_in("text", view, review_blocks(state, rv), here="in the run's thread")
    assert "To answer, reply in the run's thread: *approve*" in text and "in this thread" not in text
