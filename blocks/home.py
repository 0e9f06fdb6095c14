"""The App Home tab: what waits on you, the runs you started, and how your last week went."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from blocks.help import COMMAND_LINES, RunRow, row_line
from blocks.limits import MAX_SECTION_TEXT
from blocks.text import context, divider, header, pack, section

SHOWN = 15
HELP_LINE = "\n`/tandem help` in a channel — these commands there"


def _rows(title: str, rows: Sequence[RunRow], empty: str) -> list[dict[str, Any]]:
    if not rows:
        return [section(f"*{title}*\n_{empty}_")]
    lines = [f"*{title}* · {len(rows)}", *(row_line(r) for r in rows[:SHOWN])]
    if len(rows) > SHOWN:
        lines.append(f"_… and {len(rows) - SHOWN} more: `/tandem list` in a channel_")
    return [section(chunk) for chunk in pack(lines, limit=MAX_SECTION_TEXT)]


def home_view(
    waiting_on_you: Sequence[RunRow], yours: Sequence[RunRow], summary: Sequence[dict[str, Any]] = ()
) -> dict[str, Any]:
    """A ``home`` view (``views.publish``); ``summary`` is the person's report section (blocks.report)."""
    blocks = [
        header("Tandem"),
        *_rows("Waiting on you", waiting_on_you, "Nothing waits on you right now."),
        divider(),
        *_rows("Runs you started", yours, "You have not started a run yet: `/tandem <task>` in a channel."),
        divider(),
        *([*summary, divider()] if summary else []),
        section(COMMAND_LINES + HELP_LINE),
        context("Reviews live in each run's thread; approve, request changes or reply there."),
    ]
    return {"type": "home", "blocks": blocks}
