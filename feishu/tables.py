"""Markdown pipe tables as card JSON 2.0 ``table`` components (Feishu's markdown element has no table syntax).

A model-written result is Markdown, and its tables arrive as pipe tables. :func:`rich` splits such text
into markdown elements and ``table`` elements, in order. Feishu takes at most :data:`MAX_TABLES` tables a
card, only at the card's top level; the rest stay as text.
"""

from __future__ import annotations

import re

from feishu.elements import Element, md
from feishu.wording import clip, escape

MAX_TABLES = 5
MAX_ROWS = 100
MAX_COLUMNS = 20
CELL_LIMIT = 300
PAGE_SIZE = 10
_DIVIDER = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def cells(line: str) -> list[str]:
    """The cells of one pipe-table line: ``| a | b |`` → ``["a", "b"]`` (``\\|`` stays a pipe in its cell)."""
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", inner)]


def table(header: list[str], rows: list[list[str]]) -> Element:
    """A ``table`` component: one ``lark_md`` column per header cell, escaped and clipped cells."""
    names = [f"c{i}" for i in range(min(len(header), MAX_COLUMNS))]
    columns = [
        {"name": n, "display_name": clip(h, 60), "data_type": "lark_md", "width": "auto"}
        for n, h in zip(names, header, strict=False)
    ]
    shown = [{n: escape(clip(r[i] if i < len(r) else "", CELL_LIMIT)) for i, n in enumerate(names)} for r in rows]
    return {
        "tag": "table",
        "page_size": min(PAGE_SIZE, max(len(shown), 1)),
        "row_height": "auto",
        "header_style": {"background_style": "grey", "bold": True},
        "columns": columns,
        "rows": shown[:MAX_ROWS],
    }


def rich(text: str, head: str = "") -> list[Element]:
    """``text`` (Markdown, not yet escaped) as markdown elements with its pipe tables as ``table`` components;
    ``head`` (card markdown) leads the first element."""
    out: list[Element] = []
    prose: list[str] = [head] if head else []
    lines = text.split("\n")
    i, tables = 0, 0
    while i < len(lines):
        starts = i + 1 < len(lines) and "|" in lines[i] and _DIVIDER.match(lines[i + 1]) is not None
        if not starts or tables >= MAX_TABLES:
            prose.append(escape(lines[i]))
            i += 1
            continue
        end = i + 2
        while end < len(lines) and "|" in lines[end] and lines[end].strip():
            end += 1
        if any(p.strip() for p in prose):
            out.append(md("\n".join(prose).strip("\n")))
        prose = []
        out.append(table(cells(lines[i]), [cells(row) for row in lines[i + 2 : end]]))
        tables += 1
        i = end
    if any(p.strip() for p in prose):
        out.append(md("\n".join(prose).strip("\n")))
    return out
