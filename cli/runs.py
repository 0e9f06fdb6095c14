"""``tandem runs`` and how the terminal names a run: both through the read use cases of
:class:`~agent.commands.Commands` (the terminal sees every run on its machine); this module only renders."""

from __future__ import annotations

import argparse
import json
import shutil
import unicodedata

from agent.commands import Commands, NoSuchRun
from agent.errors import UnknownRun
from agent.listing import RunRow
from cli.names import person
from cli.render import plain

__all__ = ["clip", "no_such_run", "run_named", "runs_command"]

EMPTY = 'No runs yet. Start one with: tandem run "restart payments and check errors after"'
MIN_TASK = 24
"""However narrow the terminal, a task keeps this many columns of its text."""
REASON = 160
"""At most this many characters of why a run was stopped."""
PIPED = (120, 24)
"""The width a table is cut to when it goes to no terminal (a pipe, a file) and ``COLUMNS`` says none."""


def no_such_run(missing: NoSuchRun) -> UnknownRun:
    """What the terminal says when an id names no run, or several."""
    if missing.several:
        listed = ", ".join(missing.several)
        return UnknownRun(
            f"Several runs start with '{missing.ref}' ({listed}); give more of the id. List runs with `tandem runs`."
        )
    return UnknownRun(f"No run with id '{missing.ref}'. List runs with `tandem runs`.")


async def run_named(commands: Commands, ref: str) -> str:
    """The full id of the one run ``ref`` (an id or a unique prefix of one) names, or the error that says why
    none: the same rule every channel finds a run by."""
    found = await commands.find(ref, None)  # the terminal sees every run
    if isinstance(found, NoSuchRun):
        raise no_such_run(found)
    return found


def width(text: str) -> int:
    """Columns ``text`` takes in a terminal (a CJK character takes two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def clip(text: str, columns: int) -> str:
    """``text`` on one line, cut with ``…`` to at most ``columns`` terminal columns."""
    line = " ".join(text.split())
    if width(line) <= columns:
        return line
    kept, used = [], 1  # the ellipsis takes one
    for ch in line:
        used += width(ch)
        if used > columns:
            break
        kept.append(ch)
    return "".join(kept).rstrip() + "…"


def row_line(row: RunRow, columns: int) -> str:
    """One run as a line that fits ``columns`` where it can: the task is cut to make room (never below
    :data:`MIN_TASK`); `tandem show RUN` and ``--json`` have it whole."""
    run = row.run
    head = f"{run.id}  {run.status:<16} {person(run.requester):<10} "
    said = f"  · {row.ended.line()}" if row.ended is not None and row.ended.word != "done" else ""
    why = plain(row.stopped_because)[:REASON]
    said += f"  · {why}" if why else ""
    note = f"  ⚠ {row.undelivered} not delivered" if row.undelivered else ""
    note += f"  [{row.priority}]" if row.priority != "normal" else ""
    room = max(MIN_TASK, columns - width(head) - width(said + note))
    return f"{head}{clip(run.task, room)}{said}{note}"


async def runs_command(args: argparse.Namespace, commands: Commands) -> int:
    """``tandem runs [--status S] [--limit N] [--json]``."""
    table = await commands.runs(None, status=args.status, limit=args.limit)
    if args.json:
        print(json.dumps([row.run.model_dump(mode="json") for row in table.rows], indent=2, ensure_ascii=False))
        return 0
    if not table.rows:
        print(EMPTY)
    columns = shutil.get_terminal_size(PIPED).columns
    for row in table.rows:
        print(row_line(row, columns))
    return 0
