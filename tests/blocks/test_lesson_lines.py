"""Lessons on Slack messages: the result review of a plan nobody reviewed names the lessons that shaped it,
the run card names them too, and a forgotten one says who forgot it instead of offering Forget."""

from __future__ import annotations

import json
from typing import Any

from agent.models import LessonUse
from blocks import ids, review_blocks
from blocks.run_card import run_card
from tests.blocks.states import T0, all_text, assert_valid_message, review, state

USE = LessonUse(id="l1", line="use level=warning in `read_logs` for payments", by="U0ALICE", at=T0)


def _forget_values(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found = []
    for b in blocks:
        accessory = b.get("accessory") or {}
        if accessory.get("action_id") == ids.FORGET_LESSON:
            found.append(json.loads(accessory["value"]))
    return found


def test_result_review_without_a_plan_review_names_the_lesson_with_forget() -> None:
    rv = review("before_result")
    s = state("awaiting_review", rv, output="all quiet", lessons_applied=[USE], anchors=frozenset({"before_result"}))
    blocks = review_blocks(s, rv)
    assert_valid_message(blocks)
    assert "Using what <@U0ALICE> said on" in all_text(blocks) and "level=warning" in all_text(blocks)
    assert _forget_values(blocks) == [{"lesson": "l1", "run": "run-1"}]


def test_result_review_after_a_plan_review_leaves_the_lessons_to_it() -> None:
    rv = review("before_result")
    anchors = frozenset({"after_plan", "before_result"})
    s = state("awaiting_review", rv, output="all quiet", lessons_applied=[USE], anchors=anchors)
    assert "Using what" not in all_text(review_blocks(s, rv))


def test_run_card_names_the_lessons_and_a_forgotten_one_has_no_button() -> None:
    forgotten = USE.model_copy(update={"id": "l2", "forgotten_by": "U0BOB", "forgotten_at": T0 + 5})
    blocks = run_card(state("done", None, lessons_applied=[USE, forgotten]))
    assert_valid_message(blocks)
    assert "Forgotten by <@U0BOB>" in all_text(blocks)
    assert [v["lesson"] for v in _forget_values(blocks)] == ["l1"]
