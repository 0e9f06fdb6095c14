from __future__ import annotations

import pytest

from agent.decision_lines import DecisionLine, line_for
from agent.models import (
    Anchor,
    Approve,
    Cancel,
    Correct,
    Decided,
    Decision,
    Finish,
    HandBack,
    Instruct,
    Reading,
)
from blocks import ids, review_blocks
from blocks.decided import already_decided, classified_reply, decided, decision_text
from tests.blocks.states import ANCHORS, T0, action_elements, all_text, assert_valid_message, reviewing

STAMP = "<!date^1700000000^{time}|22:13 UTC>"


@pytest.mark.parametrize("anchor", ANCHORS)
def test_decided_each_anchor_loses_its_actions_and_gains_a_line(anchor: Anchor) -> None:
    run, rv = reviewing(anchor)
    line = DecisionLine(actor="U1", verb="Approved", at=T0, outcome="approved")
    blocks = decided(review_blocks(run, rv), line)
    assert_valid_message(blocks)
    assert all(b["type"] != "actions" for b in blocks)
    assert blocks[-1] == {
        "type": "context",
        "elements": [{"type": "mrkdwn", "text": f"✅ Approved by <@U1> · {STAMP}"}],
    }


def test_decided_section_button_accessory_is_removed() -> None:
    blocks = [
        {
            "type": "section",
            "text": {"type": "mrkdwn", "text": "x"},
            "accessory": action_elements(classified_reply(Reading(intent="approve"), "rv1"))[0],
        }
    ]
    out = decided(blocks, DecisionLine(actor=None, verb="Superseded", at=T0))
    assert "accessory" not in out[0]
    assert "accessory" in blocks[0]


def test_decided_full_message_stays_within_block_count() -> None:
    blocks = [{"type": "divider"}] * 50
    assert len(decided(blocks, DecisionLine(actor="U1", verb="Approved", at=T0))) == 50


@pytest.mark.parametrize(
    ("line", "text"),
    [
        (DecisionLine(actor="U1", verb="Approved", at=T0, outcome="approved"), f"✅ Approved by <@U1> · {STAMP}"),
        (
            DecisionLine(actor="U1", verb="Changes requested", at=T0, detail="use <eu> & retry", outcome="changes"),
            f"❌ Changes requested by <@U1> · {STAMP}: use &lt;eu&gt; &amp; retry",
        ),
        (DecisionLine(actor="U2", verb="Cancelled", at=T0, outcome="cancelled"), f"🛑 Cancelled by <@U2> · {STAMP}"),
        (DecisionLine(actor=None, verb="Superseded by a new plan", at=T0), f"ℹ️ Superseded by a new plan · {STAMP}"),
    ],
)
def test_decision_text_each_outcome_reads_as_expected(line: DecisionLine, text: str) -> None:
    assert decision_text(line) == text


def test_decision_text_long_feedback_is_cut_to_one_line() -> None:
    line = DecisionLine(actor="U1", verb="Changes requested", at=T0, detail="word\n" * 500)
    text = decision_text(line)
    assert "\n" not in text
    assert text.endswith("…")


@pytest.mark.parametrize(
    ("decision", "anchor", "step", "verb", "outcome", "detail"),
    [
        (Approve(), "after_plan", None, "Plan approved", "approved", ""),
        (Approve(), "before_risky_step", 2, "Step 2 approved", "approved", ""),
        (Approve(), "recovery", 2, "Re-run of step 2 approved", "approved", ""),
        (Approve(), "step_failed", 2, "Continued past failed step", "approved", ""),
        (Correct(intent="replan", feedback="use eu"), "after_plan", None, "Changes requested", "changes", "use eu"),
        (Cancel(reason="wrong region"), "after_plan", None, "Cancelled", "cancelled", "wrong region"),
        (Instruct(text="check disk"), "takeover", None, "Instruction", "info", "check disk"),
        (Finish(), "takeover", None, "Asked to finish", "info", ""),
        (HandBack(), "takeover", None, "Handed back", "info", ""),
    ],
)
def test_line_for_each_decision_kind_has_verb_and_outcome(
    decision: Decision, anchor: Anchor, step: int | None, verb: str, outcome: str, detail: str
) -> None:
    event = Decided(at=T0, review_id="rv1", decision=decision, by="U1")
    line = line_for(event, anchor, step)
    assert (line.actor, line.verb, line.outcome, line.detail, line.at) == ("U1", verb, outcome, detail, T0)


@pytest.mark.parametrize(
    ("reading", "text"),
    [
        (  # no guessed value: the step's change is said once it is made (old → new)
            Reading(intent="retry_step", target_step=2, suggested_fix="region eu-west-1"),
            "Read as: *retry step 2*\n",
        ),
        (Reading(intent="replan", reason="wants a canary first"), "change the plan* — wants a canary first"),
        (Reading(intent="approve"), "Read as: *approve*"),
        (Reading(intent="refine_output", reason="<table> please"), "rework the output* — &lt;table&gt; please"),
    ],
)
def test_classified_reply_says_how_it_was_read_with_override(reading: Reading, text: str) -> None:
    blocks = classified_reply(reading, "rv1")
    assert_valid_message(blocks)
    assert text in all_text(blocks)
    (button,) = action_elements(blocks)
    assert (button["action_id"], button["value"], button["text"]["text"]) == (ids.OVERRIDE, "rv1", "Not what I meant")


def test_already_decided_names_who_and_when() -> None:
    blocks = already_decided("U7", T0, "approved")
    assert_valid_message(blocks)
    assert all_text(blocks) == f"Already approved by <@U7> at {STAMP}; nothing to do."


def test_already_decided_unknown_decider_says_review_closed() -> None:
    assert "no longer open" in all_text(already_decided(None, None))
