"""Markdown pipe tables found in model-written text: the neutral part every channel renders its own way
(a chat platform's table block or card component, the terminal's aligned columns). Pure."""

from __future__ import annotations

import re

__all__ = ["segments", "table_rows"]

_FENCE = re.compile(r"^\s*(```|~~~)")
_DIVIDER = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


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
