from __future__ import annotations

from agent.models import Status
from blocks.help import RunRow, help_blocks, list_blocks, row_line, status_blocks
from blocks.text import escape
from tests.blocks.states import T0, action_ids, all_text, assert_valid_message, state


def _row(n: int = 1, status: Status = "awaiting_review", **fields: object) -> RunRow:
    base: dict[str, object] = {
        "id": f"run-{n}",
        "task": f"Restart payments {n}",
        "status": status,
        "requester": "U1",
        "updated_at": T0,
    }
    return RunRow.model_validate(base | fields)


def test_help_blocks_list_every_command() -> None:
    blocks = help_blocks()
    assert_valid_message(blocks)
    text = all_text(blocks)
    for command in (
        "/tandem <task>",
        "/tandem help",
        "/tandem list",
        "/tandem status <run>",
        "/tandem cancel <run>",
        "/tandem rules",
    ):
        assert f"`{escape(command)}`" in text
    assert "<task>" not in text
    assert "<run>" not in text


def test_list_blocks_empty_lists_say_so() -> None:
    blocks = list_blocks([], [])
    assert_valid_message(blocks)
    text = all_text(blocks)
    assert "Nothing is waiting on you." in text
    assert "No open runs in this channel." in text


def test_list_blocks_waiting_on_me_comes_first() -> None:
    waiting = _row(2, waiting_on="approval of step 2")
    text = all_text(list_blocks([_row(1, "executing"), waiting], [waiting]))
    assert text.index("Waiting on you") < text.index("run-2") < text.index("Other open runs") < text.index("run-1")
    assert "approval of step 2" in text


def test_list_blocks_show_each_run_once() -> None:
    rows = [_row(1), _row(2)]
    text = all_text(list_blocks(rows, rows))
    assert text.count("run-1") == 1 and text.count("run-2") == 1
    assert "No other open runs in this channel." in text


def test_list_blocks_many_rows_stay_within_limits_and_count_the_rest() -> None:
    rows = [_row(i, task="t" * 500, link=f"https://example.slack.com/archives/C1/p{i}") for i in range(100)]
    blocks = list_blocks(rows, rows[:50])
    assert_valid_message(blocks)
    assert "… and 35 more" in all_text(blocks)


def test_row_line_links_the_task_and_escapes_it() -> None:
    line = row_line(_row(task="fix <prod> & more", link="https://x.slack.com/archives/C1/p1"))
    assert "<https://x.slack.com/archives/C1/p1|fix &lt;prod&gt; &amp; more>" in line
    assert line.startswith("✋ ")


def test_row_line_bad_link_is_dropped() -> None:
    line = row_line(_row(link="javascript:alert(1)|x"))
    assert "javascript" not in line


def test_status_blocks_is_the_run_card_with_a_thread_link() -> None:
    blocks = status_blocks(state(), link="https://x.slack.com/archives/C1/p1")
    assert_valid_message(blocks)
    assert action_ids(blocks) == []
    assert blocks[-1]["elements"][0]["text"] == "<https://x.slack.com/archives/C1/p1|Open the run's thread>"


def test_home_view_is_valid_with_and_without_runs() -> None:
    from blocks.help import RunRow
    from blocks.home import home_view
    from blocks.limits import check_view, validate_view_with_sdk

    rows = [
        RunRow(
            id=f"r{i}",
            task="restart payments " * 20,
            status="awaiting_review",
            requester="U1",
            updated_at=0,
            waiting_on="plan review",
        )
        for i in range(40)
    ]
    for view in (home_view([], []), home_view(rows, rows)):
        validate_view_with_sdk(view)
        check_view(view)


def test_home_view_offers_help_for_a_channel_not_as_this_message() -> None:
    from blocks.home import home_view

    text = all_text(home_view([], [])["blocks"])
    assert "`/tandem help` in a channel — these commands there" in text
    assert "this message" not in text
    assert "this message" in all_text(help_blocks())


def test_row_line_labels_its_time_with_the_day() -> None:
    line = row_line(_row())
    assert line.endswith("last change <!date^1700000000^{date_short_pretty} at {time}|2023-11-14 22:13 UTC>")
