"""Model-written text as Slack shows it best: a ``markdown`` block, and its first table as a ``table`` block.

Table cells are ``raw_text`` (shown literally); Markdown text has ``& < >`` as entities.

Results and refinements are Markdown (a model's, or the offline writer's). mrkdwn has no
table syntax, so a Markdown table there shows as raw pipes; Slack's ``table`` block shows
it as a table. Text outside tables goes into ``markdown`` blocks. Pure: text in, blocks out.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

from blocks.text import Block, Blocks

MARKDOWN_BUDGET = 11_000
"""Characters of Markdown per message (Slack allows 12,000 across a message's markdown blocks)."""
TABLE_ROWS = 100
TABLE_COLUMNS = 20
CELL_LIMIT = 500
TABLES_PER_MESSAGE = 1
"""Slack shows one table block per message; later tables stay Markdown (as preformatted text)."""

_FENCE = re.compile(r"^\s*(```|~~~)")
_DIVIDER = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
MARK = "…"


class Output(NamedTuple):
    blocks: Blocks
    truncated: bool


def table_rows(lines: list[str]) -> list[list[str]]:
    """The cells of a Markdown table's lines (header first; the ``---`` line dropped)."""
    rows = []
    for line in lines:
        if _DIVIDER.match(line):
            continue
        body = line.strip()
        body = body[1:] if body.startswith("|") else body
        body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
        cells = [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", body)]
        rows.append([_plain(cell) for cell in cells])
    return rows


def _plain(cell: str) -> str:
    """A cell as raw text: a cell that is all `code` or **bold** loses the marks it cannot show."""
    for mark in ("`", "**"):
        if (
            len(cell) > 2 * len(mark)
            and cell.startswith(mark)
            and cell.endswith(mark)
            and mark not in cell[len(mark) : -len(mark)]
        ):
            return cell[len(mark) : -len(mark)]
    return cell


def segments(text: str) -> list[tuple[str, list[str]]]:
    """``text`` as ("markdown", lines) and ("table", lines) runs; nothing inside a code fence is a table."""
    out: list[tuple[str, list[str]]] = []
    lines = text.splitlines()
    fenced = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            fenced = not fenced
        starts_table = (
            not fenced
            and line.lstrip().startswith("|")
            and i + 1 < len(lines)
            and _DIVIDER.match(lines[i + 1]) is not None
        )
        if starts_table:
            j = i + 2
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                j += 1
            out.append(("table", lines[i:j]))
            i = j
            continue
        if out and out[-1][0] == "markdown":
            out[-1][1].append(line)
        else:
            out.append(("markdown", [line]))
        i += 1
    return out


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
