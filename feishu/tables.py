"""Markdown pipe tables as card JSON 2.0 ``table`` components (Feishu's markdown element has no table syntax).

A model-written result is Markdown, and its tables arrive as pipe tables (found by
:mod:`agent.markdown_tables`, as Slack's and the terminal's are). :func:`rich` turns such text into
markdown elements and ``table`` elements, in order. Feishu takes at most :data:`MAX_TABLES` tables a
card, only at the card's top level; later ones stay as preformatted text.
"""

from __future__ import annotations

from agent.markdown_tables import segments, table_rows
from feishu.elements import Element, md
from feishu.wording import clip, escape

MAX_TABLES = 5
MAX_ROWS = 100
MAX_COLUMNS = 20
CELL_LIMIT = 300
PAGE_SIZE = 10


def table(header: list[str], rows: list[list[str]]) -> Element:
    """A ``table`` component: one ``lark_md`` column per header cell, its cells escaped and clipped."""
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
    tables = 0
    for kind, lines in segments(text):
        if kind == "table" and tables < MAX_TABLES:
            if any(p.strip() for p in prose):
                out.append(md("\n".join(prose).strip("\n")))
            prose = []
            header, *rows = table_rows(lines)
            out.append(table(header, rows))
            tables += 1
            continue
        body = escape("\n".join(lines))
        prose.append(f"```\n{body}\n```" if kind == "table" else body)
    if any(p.strip() for p in prose):
        out.append(md("\n".join(prose).strip("\n")))
    return out
