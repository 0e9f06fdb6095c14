"""Every review message: valid, within limits, and wired to the right actions."""

from __future__ import annotations

import json

import pytest

from agent.config import PolicyConfig
from agent.models import AlwaysOffer, Anchor, GateDecision, Policy, Review, Risk
from agent.policy import SafetyPolicy
from blocks import ids, review_blocks
from blocks.limits import json_size
from blocks.plan_review import plan_review
from blocks.result_review import after_risky_step, result_review, step_failed
from blocks.step_approval import step_approval
from bot.origin import SlackThread
from tests.blocks.states import (
    ANCHORS,
    action_elements,
    action_ids,
    all_text,
    assert_valid_message,
    long_plan,
    review,
    reviewing,
    state,
    step,
)

EXPECTED_ACTIONS: dict[Anchor, list[str]] = {
    "after_plan": [ids.APPROVE, ids.REJECT, ids.CANCEL],
    "before_risky_step": [ids.APPROVE, ids.REJECT, ids.CANCEL],
    "after_risky_step": [ids.APPROVE, ids.REJECT, ids.CANCEL],
    "before_result": [ids.APPROVE, ids.REJECT],
    "step_failed": [ids.APPROVE, ids.REJECT, ids.CANCEL],
    "recovery": [ids.APPROVE, ids.REJECT, ids.CANCEL],
    "takeover": [ids.CANCEL],
    "takeover_step": [ids.APPROVE, ids.REJECT, ids.CANCEL],
    "handoff": [f"{ids.ANSWER}.0", f"{ids.ANSWER}.1", f"{ids.ANSWER}.2", ids.CANCEL],
}
FIRST_LABELS: dict[Anchor, str] = {
    "step_failed": "Continue anyway",
    "recovery": "Re-run",
    "takeover": "Cancel run",
    "handoff": "eu-west-1",
}
HUGE = "z" * 50_000


@pytest.mark.parametrize("anchor", ANCHORS)
def test_review_blocks_each_anchor_is_valid_and_within_limits(anchor: Anchor) -> None:
    run, rv = reviewing(anchor)
    assert_valid_message(review_blocks(run, rv))


@pytest.mark.parametrize("anchor", ANCHORS)
def test_review_blocks_each_anchor_has_its_actions(anchor: Anchor) -> None:
    run, rv = reviewing(anchor)
    assert action_ids(review_blocks(run, rv)) == EXPECTED_ACTIONS[anchor]


@pytest.mark.parametrize("anchor", ANCHORS)
def test_review_blocks_every_button_carries_the_review_id(anchor: Anchor) -> None:
    run, rv = reviewing(anchor, plan=long_plan(chars=2000))
    elements = action_elements(review_blocks(run, rv))
    assert elements
    values = {el["value"] for el in elements if el["action_id"] != ids.EVIDENCE}
    if anchor == "handoff":  # answers carry the review id with the answer
        values = {json.loads(v)["review"] if v.startswith("{") else v for v in values}
    assert values == {"rv1"}
    # Show details of the evidence names the run and its steps instead (it outlives the review)
    assert all(json.loads(el["value"])["run"] == run.id for el in elements if el["action_id"] == ids.EVIDENCE)


@pytest.mark.parametrize("anchor", ANCHORS)
def test_review_blocks_first_button_label_fits_the_anchor(anchor: Anchor) -> None:
    run, rv = reviewing(anchor)
    first = action_elements(review_blocks(run, rv))[0]
    assert first["text"]["text"] == FIRST_LABELS.get(anchor, "Approve")


@pytest.mark.parametrize("anchor", ANCHORS)
def test_review_blocks_cancel_button_is_danger_with_confirm(anchor: Anchor) -> None:
    run, rv = reviewing(anchor)
    cancels = [el for el in action_elements(review_blocks(run, rv)) if el["action_id"] == ids.CANCEL]
    for el in cancels:
        assert el["style"] == "danger"
        assert el["confirm"]["title"]["text"] == "Cancel this run?"


@pytest.mark.parametrize("anchor", ANCHORS)
def test_review_blocks_long_plan_and_huge_output_stay_within_limits(anchor: Anchor) -> None:
    plan = long_plan(chars=2000)
    for s in plan:
        s.result = HUGE
        s.error = s.error and HUGE
    run, rv = reviewing(anchor, plan=plan, output=HUGE)
    assert_valid_message(review_blocks(run, rv))


@pytest.mark.parametrize("anchor", ["after_plan", "before_risky_step", "after_risky_step", "before_result"])
def test_review_blocks_truncated_content_offers_show_details(anchor: Anchor) -> None:
    plan = long_plan(chars=2000)
    plan[1].result = HUGE
    run, rv = reviewing(anchor, plan=plan, output=HUGE)
    blocks = review_blocks(run, rv)
    details = [el for el in action_elements(blocks) if el["text"]["text"] == "Show details"]
    assert len(details) == 1 and details[0]["action_id"] in (ids.DETAILS, ids.EVIDENCE)
    assert "…" in all_text(blocks)


@pytest.mark.parametrize("anchor", ANCHORS)
def test_review_blocks_short_content_has_no_show_details(anchor: Anchor) -> None:
    run, rv = reviewing(anchor)
    assert not {ids.DETAILS, ids.EVIDENCE} & set(action_ids(review_blocks(run, rv)))


def test_plan_review_ten_step_plan_with_long_params_is_compact() -> None:
    run = state(plan=long_plan(10, 2000))
    blocks = plan_review(run, review())
    assert_valid_message(blocks)
    assert json_size(blocks) < 10_000
    assert "*10.* `tool_number_10`" in all_text(blocks)


def test_plan_review_forty_steps_packs_into_fewer_sections() -> None:
    run = state(plan=long_plan(40, 300))
    blocks = plan_review(run, review())
    assert_valid_message(blocks)
    assert len(blocks) < 20


def test_plan_review_empty_plan_says_so() -> None:
    blocks = plan_review(state(plan=[]), review())
    assert_valid_message(blocks)
    assert "no steps" in all_text(blocks)


def test_plan_review_note_is_shown_escaped() -> None:
    blocks = plan_review(state(), review(note="Replanned after feedback: use <eu-west-1> & retry"))
    assert "Replanned after feedback: use &lt;eu-west-1&gt; &amp; retry" in all_text(blocks)


def test_plan_review_risky_steps_are_named() -> None:
    plan = [step(1, risk=Risk.READ), step(2, risk=Risk.WRITE), step(3, risk=Risk.DEPLOY)]
    text = all_text(plan_review(state(plan=plan), review()))
    assert "Steps 2 and 3 ask for approval again" in text
    assert "up to 🔴 deploy" in text


def test_plan_review_safe_plan_has_no_risky_note() -> None:
    text = all_text(plan_review(state(plan=[step(1, risk=Risk.READ)]), review()))
    assert "ask for approval again" not in text


def test_plan_review_approve_is_primary() -> None:
    approve = action_elements(plan_review(state(), review()))[0]
    assert (approve["action_id"], approve["style"], approve["value"]) == (ids.APPROVE, "primary", "rv1")


def test_step_approval_params_are_key_value_chips_not_json() -> None:
    run = state(plan=[step(1, params={"service": "payments", "replicas": 3})])
    text = all_text(step_approval(run, review("before_risky_step", 1)))
    assert "`service=payments` `replicas=3`" in text
    assert '"service"' not in text
    assert "Step 1 of 1 needs approval" in text
    assert "🟠 exec" in text


def test_step_approval_missing_step_still_offers_cancel() -> None:
    blocks = step_approval(state(), review("before_risky_step", 9))
    assert_valid_message(blocks)
    assert action_ids(blocks) == [ids.CANCEL]


@pytest.mark.parametrize(
    "text",
    ["<!channel> restart <https://evil|now> & go", "a <@U999> b", "x > y"],
)
def test_review_blocks_user_text_is_escaped_everywhere(text: str) -> None:
    plan = [step(1, tool="run<x>", params={"cmd": text}, reason=text, status="failed", error=text, result=text)]
    for anchor in ANCHORS:
        run, rv = reviewing(anchor, plan=plan, output=text, takeover_reason=text)
        rv = Review(id="rv1", anchor=anchor, step=1, note=text, created_at=0, handoff=rv.handoff)
        rendered = all_text(review_blocks(run, rv))
        assert "<!channel>" not in rendered
        assert "<@U999>" not in rendered
        assert "<https://evil" not in rendered
        assert " > " not in rendered


def test_result_review_renders_output_as_mrkdwn() -> None:
    run, rv = reviewing("before_result")
    assert "*Payments* restarted" in all_text(result_review(run, rv))


def test_step_failed_keeps_the_end_of_a_long_error() -> None:
    run, rv = reviewing("step_failed")
    run.plan[1].error = "noise " * 2000 + "FATAL: disk full"
    text = all_text(step_failed(run, rv))
    assert "FATAL: disk full" in text


def test_after_risky_step_shows_the_result_and_what_ran() -> None:
    run, rv = reviewing("after_risky_step")
    text = all_text(after_risky_step(run, rv))
    assert '"restarted": 3' in text
    assert "Ran with `service=payments` `region=eu-west-1`" in text


def test_step_approval_in_a_channel_offers_always_allow_below_deploy() -> None:
    run, rv = reviewing("before_risky_step", origin=SlackThread(channel_id="C1", thread_ts="1.0"))
    assert ids.APPROVE_ALWAYS in action_ids(review_blocks(run, rv))
    run.plan[1].risk = Risk.DEPLOY
    assert ids.APPROVE_ALWAYS not in action_ids(review_blocks(run, rv))


def test_handoff_with_many_options_uses_a_select_and_text_uses_a_modal_button() -> None:
    run, rv = reviewing("handoff")
    assert rv.handoff is not None
    many = rv.model_copy(update={"handoff": rv.handoff.model_copy(update={"options": [f"o{i}" for i in range(8)]})})
    assert_valid_message(review_blocks(run, many))
    assert action_ids(review_blocks(run, many)) == [ids.ANSWER_SELECT, ids.CANCEL]
    text = rv.model_copy(update={"handoff": rv.handoff.model_copy(update={"input_type": "text"})})
    assert action_ids(review_blocks(run, text)) == [ids.ANSWER_TEXT, ids.CANCEL]
    confirm = rv.model_copy(update={"handoff": rv.handoff.model_copy(update={"input_type": "confirm"})})
    assert action_ids(review_blocks(run, confirm)) == [ids.ANSWER, f"{ids.ANSWER}.no", ids.CANCEL]


def test_result_review_quoting_part_of_a_step_output_offers_show_details() -> None:
    logs = "\n".join(f"12:0{i} ERROR payment declined #{i}" for i in range(17))
    summary = "Done\n" + "\n".join(logs.splitlines()[:8]) + "\n… (9 more lines)"
    run, rv = reviewing("before_result", output=summary)
    run.plan[1].result = logs
    assert ids.DETAILS in action_ids(result_review(run, rv)), "the 9 lines left out can be read"
    run.output = summary + "\n" + logs
    assert ids.DETAILS not in action_ids(result_review(run, rv)), "nothing left out, nothing to expand"


def test_takeover_shows_what_the_last_step_returned() -> None:
    run, rv = reviewing("takeover")
    run.plan[1].status = "done"
    run.plan[1].result = "payments: 3 replicas, error rate 0.20%"
    text = all_text(review_blocks(run, rv))
    assert "Step 2 (`restart_service`) returned:" in text and "error rate 0.20%" in text
    run.plan[1].status, run.plan[1].error = "failed", "timeout after 30s"
    assert "Step 2 (`restart_service`) failed:" in all_text(review_blocks(run, rv))


def test_step_approval_with_an_always_offer_shows_who_approved_and_when() -> None:
    run, rv = reviewing("before_risky_step", origin=SlackThread(channel_id="C1", thread_ts="1.0"))
    approvals = [GateDecision(run_id=f"r{i}", by="U0BOB", at=1_700_000_000.0 - i, approved=True) for i in range(7)]
    rv.offer = AlwaysOffer(shape="restart_service(region=…, service=…)", approvals=approvals)
    blocks = review_blocks(run, rv)
    text = all_text(blocks)
    assert "<@U0BOB> approved `restart_service(region=…, service=…)` unchanged 7 times in a row here" in text
    assert "<!date^1700000000^" in text and "and 2 earlier" in text
    assert ids.APPROVE_ALWAYS in action_ids(blocks)
    assert_valid_message(blocks)


def test_plan_review_says_the_exec_approver_approves_the_restart_with_the_plan() -> None:
    demo = SafetyPolicy(PolicyConfig(approvers={"exec": ["U0BOB"]}))
    run = state(plan=[step(1, risk=Risk.READ, tool="check_health"), step(2)], policy=Policy(merge_gate=True))
    text = all_text(review_blocks(run, review(), demo))
    assert (
        "Approved by <@U0BOB> (who may approve exec steps), this plan also approves step 2 `restart_service` "
        "`service=payments, region=eu-west-1`; approved by anyone else, step 2 still asks <@U0BOB>"
    ) in text


def test_result_review_shows_what_each_risky_step_did() -> None:
    run, rv = reviewing("before_result", plan=[step(1, status="done", result="Restarted payments: degraded → running")])
    text = all_text(review_blocks(run, rv))
    assert "Step 1 restart_service (exec) ran: Restarted payments: degraded → running" in text


def test_handoff_question_closed_before_it_was_shown_says_so_without_controls() -> None:
    # a question cancelled before its post: only the stored review is left, and it does not carry the question
    state, asked = reviewing("handoff")
    closed = asked.model_copy(update={"handoff": None})
    blocks = review_blocks(state, closed)
    assert_valid_message(blocks)
    assert "closed before it was shown" in all_text(blocks)
    assert action_elements(blocks) == []
