"""A result's Markdown tables become card 2.0 table components on Feishu cards, not raw pipes."""

from __future__ import annotations

import json

from agent.policy import SafetyPolicy
from agent.review_view import review_view
from feishu.cards import review_card, run_card
from feishu.tables import MAX_TABLES, rich
from tests.blocks.states import reviewing, state

RESULT = (
    "Error counts by service:\n\n| service | errors |\n|---|---:|\n| payments | 12 |\n| checkout | 0 |\n\nAll good."
)


def test_result_card_shows_a_markdown_table_as_a_table_component() -> None:
    run, rv = reviewing("before_result", output=RESULT)
    card = review_card(review_view(run, rv, SafetyPolicy()))
    [shown] = [e for e in card["body"]["elements"] if e["tag"] == "table"]
    assert [c["display_name"] for c in shown["columns"]] == ["service", "errors"]
    assert [list(r.values()) for r in shown["rows"]] == [["payments", "12"], ["checkout", "0"]]
    assert "|---|" not in json.dumps(card) and "All good." in json.dumps(card)


def test_run_card_of_a_done_run_shows_its_table_as_a_table_component() -> None:
    card = run_card(state("done", output=RESULT))
    assert any(e["tag"] == "table" for e in card["body"]["elements"]) and "| payments |" not in json.dumps(card)


def test_rich_keeps_text_around_tables_escaped_and_tables_past_the_limit_as_text() -> None:
    one = "| a | b |\n| --- | --- |\n| <at id=all></at> | x \\| y |"
    parts = rich("\n\n".join([one] * (MAX_TABLES + 1)), "**Result**")
    tables = [p for p in parts if p["tag"] == "table"]
    assert len(tables) == MAX_TABLES and parts[0] == {"tag": "markdown", "content": "**Result**"}
    assert tables[0]["rows"] == [{"c0": "&lt;at id=all&gt;&lt;/at&gt;", "c1": "x | y"}]
    assert "```\n| a | b |" in parts[-1]["content"]
