"""The failed-step review says whether a step that ran out of time was stopped or still runs."""

from __future__ import annotations

import pytest

from agent.models.steps import TimeoutOutcome
from blocks import ids, review_blocks
from blocks.result_review import step_failed
from cli.render import review_text
from tests.blocks.states import action_ids, all_text, assert_valid_message, reviewing

STOPPED = "Tandem stopped it; it is not running any more."
RUNS_ON = "It is still running in the background and may yet take effect: check before retrying."


def timed_out(outcome: TimeoutOutcome | None) -> tuple[str, str]:
    run, rv = reviewing("step_failed")
    run.plan[1].error = "Timed out after 30 s."
    run.plan[1].timed_out = outcome
    blocks = step_failed(run, rv)
    assert_valid_message(blocks)
    assert action_ids(review_blocks(run, rv)) == [ids.APPROVE, ids.REJECT, ids.CANCEL]
    return all_text(blocks), review_text(run, rv)


@pytest.mark.parametrize(
    ("outcome", "said", "not_said"),
    [("cancelled", STOPPED, RUNS_ON), ("abandoned", RUNS_ON, STOPPED)],
)
def test_step_failed_after_a_timeout_says_how_it_ended(outcome: TimeoutOutcome, said: str, not_said: str) -> None:
    slack, terminal = timed_out(outcome)
    for text in (slack, terminal):
        assert "Timed out after 30 s." in text and said in text and not_said not in text


def test_step_failed_still_running_is_a_warning_in_slack() -> None:
    slack, _ = timed_out("abandoned")
    assert f"⚠️ *{RUNS_ON}" in slack


def test_step_failed_without_a_timeout_says_nothing_about_one() -> None:
    slack, terminal = timed_out(None)
    for text in (slack, terminal):
        assert STOPPED not in text and "still running" not in text
