"""Model-written text as Slack shows it best: a ``markdown`` block, and its first table as a ``table`` block.

Table cells are ``raw_text`` (shown literally); Markdown text has ``& < >`` as entities.

Results and refinements are Markdown (a model's, or the offline writer's). mrkdwn has no
table syntax, so a Markdown table there shows as raw pipes; Slack's ``table`` block shows
it as a table. Text outside tables goes into ``markdown`` blocks. Pure: text in, blocks out.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from agent.markdown_tables import segments, table_rows
from blocks.text import Block, Blocks

MARKDOWN_BUDGET = 11_000
"""Characters of Markdown per message (Slack allows 12,000 across a message's markdown blocks)."""
TABLE_ROWS = 100
TABLE_COLUMNS = 20
CELL_LIMIT = 500
TABLES_PER_MESSAGE = 1
"""Slack shows one table block per message; later tables stay Markdown (as preformatted text)."""

MARK = "…"


class Output(NamedTuple):
    blocks: Blocks
    truncated: bool


def _clip(text: str, limit: int) -> tuple[str, bool]:
    return (text, False) if len(text) <= limit else (text[: limit - len(MARK)].rstrip() + MARK, True)


def table_block(rows: list[list[str]], max_bytes: int) -> tuple[Block, bool]:
    """A ``table`` block of raw-text cells, cut to Slack's row and column limits and to ``max_bytes`` of JSON."""
    width = min(max(len(r) for r in rows), TABLE_COLUMNS)
    cut = len(rows) > TABLE_ROWS or any(len(r) > TABLE_COLUMNS for r in rows)
    cells: list[list[dict[str, Any]]] = []
    used = 60 + 20 * width  # the block's own keys and column settings
    for row in rows[:TABLE_ROWS]:
        padded = (row + [""] * width)[:width]
        line = []
        for cell in padded:
            text, clipped = _clip(cell or " ", CELL_LIMIT)
            cut = cut or clipped
            line.append({"type": "raw_text", "text": text})
        size = sum(len(c["text"].encode()) + 30 for c in line) + 2
        if cells and used + size > max_bytes:
            return _table(cells, width), True
        used += size
        cells.append(line)
    return _table(cells, width), cut


def _table(cells: list[list[dict[str, Any]]], width: int) -> Block:
    return {"type": "table", "rows": cells, "column_settings": [{"is_wrapped": True}] * width}


def output_blocks(text: str, budget: int = MARKDOWN_BUDGET) -> Output:
    """``text`` as ``markdown`` blocks, its first table as a ``table`` block; ``truncated`` when anything was cut."""
    blocks: Blocks = []
    truncated = False
    tables = 0
    left = budget
    for kind, lines in segments(text):
        if kind == "table" and tables < TABLES_PER_MESSAGE:
            block, cut = table_block(table_rows(lines), max(left, 600))
            blocks.append(block)
            truncated = truncated or cut
            tables += 1
            left -= len(json.dumps(block, ensure_ascii=False).encode()) // 2
            continue
        body = "\n".join(lines).strip("\n")
        if kind == "table":  # a second table: preformatted, so its columns still line up
            body = "```\n" + body + "\n```"
        if not body.strip():
            continue
        if left <= len(MARK):
            truncated = True
            break
        chunk, cut = _clip(body, left)
        # & < > as entities, as in mrkdwn: Markdown shows them as typed, and nothing in a model's text
        # becomes a mention, a channel ping or a link it did not write as Markdown.
        safe = chunk.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        blocks.append({"type": "markdown", "text": safe})
        left -= len(safe)
        truncated = truncated or cut
    return Output(blocks, truncated)
