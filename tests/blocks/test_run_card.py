from __future__ import annotations

from typing import get_args

import pytest

from agent.decision_lines import DecisionLine
from agent.models import Phase, Risk, StepStatus
from blocks.limits import json_size
from blocks.run_card import run_card, step_line
from tests.blocks.states import T0, action_ids, all_text, assert_valid_message, long_plan, review, state, step

PHASES: tuple[Phase, ...] = get_args(Phase)
HUGE = "q" * 50_000


def _decisions(n: int) -> list[DecisionLine]:
    return [
        DecisionLine(actor="U1", verb="Plan approved", at=T0 + 60 * i, detail="d" * 2000, outcome="approved")
        for i in range(n)
    ]


@pytest.mark.parametrize("phase", PHASES)
def test_run_card_each_phase_is_valid_and_has_no_buttons(phase: Phase) -> None:
    pending = review() if phase == "awaiting_review" else None
    blocks = run_card(state(phase, pending), _decisions(2))
    assert_valid_message(blocks)
    assert action_ids(blocks) == []


@pytest.mark.parametrize(
    ("phase", "label"),
    [
        ("planning", "📝 Planning"),
        ("awaiting_review", "✋ Awaiting review"),
        ("executing", "⚙️ Executing"),
        ("done", "✅ Done"),
        ("cancelled", "🛑 Cancelled"),
        ("failed", "❌ Failed"),
    ],
)
def test_run_card_status_line_shows_icon_and_label(phase: Phase, label: str) -> None:
    pending = review() if phase == "awaiting_review" else None
    ran = [step(1, status="done"), step(2, status="done")] if phase == "done" else None
    assert f"*{label}*" in all_text(run_card(state(phase, pending, **({"plan": ran} if ran else {}))))


@pytest.mark.parametrize(
    ("statuses", "line"),
    [
        (["done", "failed"], "*⚠️ Finished with problems* · 1 of 2 steps failed"),
        (["done", "pending"], "*🟡 Partly done* · 1 planned step not run"),
        (["pending"], "*⚪ Nothing ran*"),
    ],
)
def test_run_card_of_a_done_run_says_what_failed_or_did_not_run(statuses: list[StepStatus], line: str) -> None:
    plan = [step(n, status=status) for n, status in enumerate(statuses, start=1)]
    assert line in all_text(run_card(state("done", plan=plan)))


def test_run_card_takeover_shows_why() -> None:
    text = all_text(run_card(state("executing", takeover=True, takeover_reason="Retries ran out")))
    assert "*🧑‍💻 Human takeover* — Retries ran out" in text


def test_run_card_awaiting_review_says_what_it_waits_for() -> None:
    text = all_text(run_card(state("awaiting_review", review("before_risky_step", 2))))
    assert "approval of step 2" in text


def test_run_card_header_is_the_task_truncated() -> None:
    blocks = run_card(state(task="Restart " + "payments " * 40))
    assert blocks[0]["type"] == "header"
    assert len(blocks[0]["text"]["text"]) == 150
    assert blocks[0]["text"]["text"].endswith("…")


def test_run_card_steps_show_status_tool_params_and_risk() -> None:
    text = all_text(run_card(state("executing", plan=[step(1, status="running", risk=Risk.DEPLOY)])))
    assert "⏳ *1.* `restart_service` `service=payments` `region=eu-west-1` · 🔴 deploy" in text
    assert "running step 1 of 1" in text


def test_run_card_ten_long_steps_many_decisions_and_huge_output_stay_within_limits() -> None:
    run = state("done", plan=long_plan(10, 2000), output=HUGE)
    blocks = run_card(run, _decisions(30), approvers="<@U2>, <@U3>")
    assert_valid_message(blocks)
    assert json_size(blocks) < 10_000


def test_run_card_many_decisions_names_who_decided_in_one_line_not_each() -> None:
    lines = [*_decisions(11), DecisionLine(actor="U2", verb="Step 2 approved", at=T0, outcome="approved")]
    text = all_text(run_card(state(), lines))
    assert "Decided by <@U1>, <@U2> · 12 decisions, each in the thread" in text
    assert "Plan approved" not in text and "d" * 50 not in text


def test_run_card_decision_by_a_rule_says_so_without_a_person() -> None:
    rule = DecisionLine(actor=None, verb="Step 2 approved by an always-allow rule", at=T0, outcome="approved")
    text = all_text(run_card(state(), [rule]))
    assert "Decided by a rule or a deadline · 1 decision, each in the thread" in text


def test_run_card_without_approvers_says_the_requester_decides() -> None:
    text = all_text(run_card(state()))
    assert "Approvals: the requester decides · asks before write+ steps" in text


def test_run_card_given_approvers_are_shown() -> None:
    assert "Approvals: <!subteam^S1>" in all_text(run_card(state(), approvers="<!subteam^S1>"))


def test_run_card_done_shows_the_result_in_one_line_not_whole() -> None:
    output = "## Summary\n- Restarted <3> pods & verified\n\nThe error rate fell from 4% to 0.1% after the restart."
    text = all_text(run_card(state("done", output=output)))
    assert "*Result:* Summary" in text
    assert "Restarted" not in text and "error rate" not in text


def test_run_card_done_result_line_is_the_first_line_with_words_clipped() -> None:
    text = all_text(run_card(state("done", output="\n\n* **Restarted <3> pods** & verified " + "x" * 400)))
    assert "*Result:* Restarted &lt;3&gt; pods &amp; verified xxx" in text
    assert "x" * 250 not in text


def test_run_card_failed_shows_error() -> None:
    assert "*Failed:* planner gave up" in all_text(run_card(state("failed", error="planner gave up")))


def test_run_card_task_and_requester_are_escaped_in_mrkdwn() -> None:
    blocks = run_card(state(task="<!channel> go", requester="<!here>"))
    assert blocks[0]["text"] == {"type": "plain_text", "text": "<!channel> go", "emoji": True}
    text = all_text(blocks[1:])
    assert "<!here>" not in text
    assert "&lt;!here&gt;" in text


def test_step_line_failed_step_shows_its_error() -> None:
    line = step_line(step(3, status="failed", error="connection <refused>", attempts=2))
    assert line.startswith("❌ *3.* `restart_service`")
    assert "attempt 2" in line
    assert line.endswith("\n↳ connection &lt;refused&gt;")


def test_step_line_long_params_fit_the_limit() -> None:
    assert len(step_line(long_plan(1, 5000)[0], 120)) <= 120


def test_run_card_keeps_steps_of_earlier_plans_and_names_who_it_waits_on() -> None:
    ran = [step(1, status="done"), step(2, tool="restart_service", status="done")]
    now = [step(3, tool="read_logs"), step(4, tool="check_service")]
    blocks = run_card(state("awaiting_review", review(), history=ran, plan=now), waiting_on=["U0BOB", "S0OPS"])
    assert_valid_message(blocks)
    text = all_text(blocks)
    assert [f"*{n}.*" in text for n in (1, 2, 3, 4)] == [True] * 4
    assert "waiting on <@U0BOB>, <!subteam^S0OPS>" in text


def test_run_card_note_by_nobody_is_no_decision() -> None:
    note = DecisionLine(actor=None, verb="No longer open: the run moved on", at=T0, outcome="info")
    assert "Decided by" not in all_text(run_card(state(), [note]))


def test_run_card_result_that_is_only_a_table_points_to_the_thread() -> None:
    text = all_text(run_card(state("done", output="| service | status |\n|---|---|\n| payments | up |")))
    assert "*Result:* _in the thread_" in text and "payments" not in text.split("*Result:*")[1]
