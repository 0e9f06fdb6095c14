from __future__ import annotations

import json
from typing import Any

import pytest

from agent.models import Anchor
from blocks import ids
from blocks.ids import IntentChoice
from blocks.limits import BlockLimitError
from blocks.modals import details_modal, feedback_modal, review_details
from tests.blocks.states import ANCHORS, all_text, assert_valid_view, long_plan, reviewing

META = json.dumps({"review": "rv1", "run": "run-1", "channel": "C1", "thread_ts": "1700000000.000100"})


def _input(view: dict[str, Any], block_id: str) -> dict[str, Any]:
    (block,) = [b for b in view["blocks"] if b.get("block_id") == block_id]
    element: dict[str, Any] = block["element"]
    return element


def test_feedback_modal_is_valid_with_callback_and_title() -> None:
    view = feedback_modal(META)
    assert_valid_view(view)
    assert view["callback_id"] == ids.FEEDBACK_MODAL
    assert view["title"]["text"] == "Request changes"
    assert view["private_metadata"] == META


def test_feedback_modal_offers_the_four_intents_with_auto_default() -> None:
    radios = _input(feedback_modal(META), ids.INTENT_BLOCK)
    assert radios["action_id"] == ids.INTENT_ACTION
    assert [o["value"] for o in radios["options"]] == ["replan", "retry_step", "refine_output", "auto"]
    assert [o["text"]["text"] for o in radios["options"]] == [
        "*The plan's direction*",
        "*This step's parameters*",
        "*Only the output's format*",
        "*Let Tandem decide*",
    ]
    assert radios["initial_option"]["value"] == "auto"


@pytest.mark.parametrize("intent", ids.INTENT_CHOICES)
def test_feedback_modal_initial_intent_is_selected(intent: IntentChoice) -> None:
    radios = _input(feedback_modal(META, initial_intent=intent), ids.INTENT_BLOCK)
    assert radios["initial_option"]["value"] == intent


def test_feedback_modal_text_input_is_required_multiline_up_to_3000() -> None:
    view = feedback_modal(META)
    text = _input(view, ids.FEEDBACK_BLOCK)
    assert (text["type"], text["action_id"], text["multiline"], text["max_length"]) == (
        "plain_text_input",
        ids.FEEDBACK_ACTION,
        True,
        3000,
    )
    assert "initial_value" not in text
    assert all(not b.get("optional") for b in view["blocks"])


def test_feedback_modal_initial_feedback_is_prefilled_and_capped() -> None:
    text = _input(feedback_modal(META, initial_feedback="f" * 5000), ids.FEEDBACK_BLOCK)
    assert len(text["initial_value"]) == 3000


def test_feedback_modal_subject_is_shown_escaped() -> None:
    view = feedback_modal(META, subject="Plan for <!channel> restart")
    assert_valid_view(view)
    assert "Plan for &lt;!channel&gt; restart" in all_text(view["blocks"])


def test_feedback_modal_oversized_metadata_raises() -> None:
    with pytest.raises(BlockLimitError, match="private_metadata is 3001 characters"):
        feedback_modal("m" * 3001)


def test_details_modal_fifty_kb_is_split_into_code_sections_within_limits() -> None:
    text = "\n".join(f"line {i}: " + "x" * 60 for i in range(760))
    assert len(text) > 50_000
    view = details_modal("Step 2 output", text, heading="*Step 2*")
    assert_valid_view(view)
    assert view["callback_id"] == ids.DETAILS_MODAL
    sections = [b for b in view["blocks"] if b["type"] == "section"][1:]
    assert len(sections) > 15
    assert all(s["text"]["text"].startswith("```") and s["text"]["text"].endswith("```") for s in sections)
    assert "line 759:" in all_text(view["blocks"])


def test_details_modal_beyond_capacity_says_how_much_is_shown() -> None:
    view = details_modal("Huge", "<" * 200_000)
    assert_valid_view(view)
    assert "Showing the first" in all_text(view["blocks"])
    assert "of 200,000 characters" in all_text(view["blocks"])


def test_details_modal_long_title_is_cut_to_24() -> None:
    view = details_modal("A very long title for a modal", "x")
    assert_valid_view(view)
    assert len(view["title"]["text"]) == 24


def test_details_modal_empty_text_is_valid() -> None:
    assert_valid_view(details_modal("Empty", ""))


@pytest.mark.parametrize("anchor", ANCHORS)
def test_review_details_each_anchor_is_a_valid_details_view(anchor: Anchor) -> None:
    plan = long_plan(10, 2000)
    plan[1].result = "r" * 50_000
    run, rv = reviewing(anchor, plan=plan, output="o" * 50_000)
    view = review_details(run, rv)
    assert_valid_view(view)
    assert view["callback_id"] == ids.DETAILS_MODAL


def test_review_details_plan_shows_full_params() -> None:
    run, rv = reviewing("after_plan", plan=long_plan(2, 2000))
    text = all_text(review_details(run, rv)["blocks"])
    assert "x" * 2000 in text.replace("```", "").replace("\n", "")
