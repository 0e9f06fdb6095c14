"""The ``data_table`` block (Block Kit, 2026), which slack_sdk's models do not know yet: checked here as
Slack documents it, so a message carrying a malformed one is refused as Slack would refuse it.

Fields: ``caption`` (required), ``rows`` (required: a header row, then 1 to 100 rows, every row 1 to 20
cells and all the same length), ``page_size`` (1 to 100), ``row_header_column_index`` (0-based),
``block_id`` (at most 255 characters). Cells are ``raw_text`` (``text``), ``raw_number`` (``value``, and
the ``text`` shown) or ``rich_text``, which a header cell may not be.
"""

from __future__ import annotations

from typing import Any

FIELDS = frozenset({"type", "block_id", "caption", "rows", "page_size", "row_header_column_index"})
MAX_ROWS = 101  # the header and 100 rows
MAX_COLUMNS = 20


def problem(block: dict[str, Any]) -> str | None:
    """What is wrong with a ``data_table`` block, or None."""
    unknown = set(block) - FIELDS
    if unknown:
        return f"unknown {'field' if len(unknown) == 1 else 'fields'}: {', '.join(sorted(unknown))}"
    if not isinstance(block.get("caption"), str) or not block["caption"]:
        return "invalid block: data_table needs a caption"
    if len(str(block.get("block_id", ""))) > 255:
        return "invalid block: block_id is longer than 255 characters"
    rows = block.get("rows")
    if not isinstance(rows, list) or not 2 <= len(rows) <= MAX_ROWS:
        return f"invalid block: data_table needs a header row and 1 to {MAX_ROWS - 1} rows"
    if not all(isinstance(r, list) and 1 <= len(r) <= MAX_COLUMNS for r in rows):
        return f"invalid block: each row is a list of 1 to {MAX_COLUMNS} cells"
    if len({len(r) for r in rows}) != 1:
        return "invalid block: every row must have the same number of cells"
    for i, row in enumerate(rows):
        for cell in row:
            bad = _cell_problem(cell, header=i == 0)
            if bad:
                return f"invalid block: row {i}: {bad}"
    return _settings_problem(block, len(rows[0]))


def _cell_problem(cell: Any, *, header: bool) -> str | None:
    kind = cell.get("type") if isinstance(cell, dict) else None
    if kind == "raw_text":
        return None if isinstance(cell.get("text"), str) and set(cell) == {"type", "text"} else "a bad raw_text cell"
    if kind == "raw_number":
        value, text = cell.get("value"), cell.get("text")
        number = isinstance(value, int | float) and not isinstance(value, bool)
        ok = number and isinstance(text, str) and text and set(cell) == {"type", "value", "text"}
        return None if ok else "a bad raw_number cell (value: a number, text: what shows)"
    if kind == "rich_text":
        return "a header cell cannot be rich_text" if header else None
    return f"unsupported cell type: {kind!r}"


def _settings_problem(block: dict[str, Any], columns: int) -> str | None:
    size = block.get("page_size", 5)
    if not isinstance(size, int) or isinstance(size, bool) or not 1 <= size <= 100:
        return "invalid block: page_size must be 1 to 100"
    index = block.get("row_header_column_index", 0)
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < columns:
        return "invalid block: row_header_column_index must name a column"
    return None
