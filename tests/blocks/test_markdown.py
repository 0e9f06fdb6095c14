"""Model-written results as Slack's markdown and table blocks."""

from __future__ import annotations

from agent.markdown_tables import segments, table_rows
from blocks.limits import check_message, validate_with_sdk
from blocks.markdown import output_blocks
from blocks.result_review import result_review
from tests.blocks.states import reviewing

TABLE = """**Done: restart_service checkout**

| # | Tool | Outcome |
| --- | --- | --- |
| 1 | `restart_service` | Restarted checkout: p99 812ms → 140ms |
| 2 | `read_logs` | 3 errors \\| 0 warnings |

Notes: all green."""


def test_first_table_becomes_a_table_block_and_the_rest_markdown() -> None:
    out = output_blocks(TABLE)
    assert [b["type"] for b in out.blocks] == ["markdown", "table", "markdown"]
    rows = [[c["text"] for c in row] for row in out.blocks[1]["rows"]]
    assert rows[0] == ["#", "Tool", "Outcome"]
    assert rows[2] == ["2", "read_logs", "3 errors | 0 warnings"], "an escaped pipe stays in its cell; `code` marks go"
    assert not out.truncated
    check_message(out.blocks)
    validate_with_sdk(out.blocks)


def test_second_table_stays_preformatted_markdown() -> None:
    out = output_blocks(TABLE + "\n\n| a | b |\n| - | - |\n| 1 | 2 |".replace("| - | - |", "| --- | --- |"))
    kinds = [b["type"] for b in out.blocks]
    assert kinds.count("table") == 1, "Slack shows one table per message"
    assert "```\n| a | b |" in out.blocks[-1]["text"]


def test_pipes_inside_a_code_fence_are_no_table() -> None:
    text = "```\n| a | b |\n| --- | --- |\n```"
    assert [kind for kind, _ in segments(text)] == ["markdown"]


def test_markdown_text_is_escaped_so_nothing_pings_or_links() -> None:
    out = output_blocks("<!channel> look at <https://evil|this> & 2 > 1")
    assert out.blocks == [
        {"type": "markdown", "text": "&lt;!channel&gt; look at &lt;https://evil|this&gt; &amp; 2 &gt; 1"}
    ]


def test_long_output_and_big_tables_are_cut_and_say_so() -> None:
    rows = "\n".join(f"| {i} | {'x' * 80} |" for i in range(300))
    out = output_blocks("| n | v |\n| --- | --- |\n" + rows + "\n\n" + "y" * 5000, budget=2900)
    assert out.truncated
    check_message(out.blocks)
    assert len(out.blocks[0]["rows"]) < 100


def test_table_rows_pad_short_rows_to_the_widest() -> None:
    rows = table_rows(["| a | b | c |", "|---|---|---|", "| 1 |"])
    assert rows == [["a", "b", "c"], ["1"]]
    out = output_blocks("| a | b | c |\n|---|---|---|\n| 1 |")
    assert [len(r) for r in out.blocks[0]["rows"]] == [3, 3]


def test_result_review_shows_a_table_result_as_a_table() -> None:
    run, rv = reviewing("before_result", output=TABLE)
    blocks = result_review(run, rv)
    assert "table" in [b["type"] for b in blocks]
    check_message(blocks)
    validate_with_sdk(blocks)
