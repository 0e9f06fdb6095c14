"""Answers to ``/tandem help``, ``/tandem list`` and ``/tandem status <run>``."""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from agent.decision_lines import DecisionLine
from agent.models import RunState, Status
from blocks.limits import MAX_SECTION_TEXT
from blocks.run_card import run_card
from blocks.text import STATUS_LABELS, Blocks, clip, context, escape, mention, pack, section, when_day

ROWS_SHOWN = 15
_LINK = re.compile(r"https?://[^\s<>|]+")

COMMAND_LINES = (
    "*Commands*\n"
    "`/tandem &lt;task&gt;` — start a run, e.g. `/tandem restart payments in eu-west-1` "
    "(or `@Tandem &lt;task&gt;` in the channel)\n"
    "`/tandem list` — open runs in this channel and runs waiting on you\n"
    "`/tandem status &lt;run&gt;` — where a run stands\n"
    "`/tandem cancel &lt;run&gt;` — stop a run\n"
    "`/tandem rules` — always-allow rules in this channel and what each covers, with Widen and Revoke\n"
    "`/tandem lessons` — what corrections taught plans in this channel, with Forget\n"
    "`/tandem report [7d|30d|date]` — corrections, takeovers and warnings for this channel"
)
COMMANDS = COMMAND_LINES + "\n`/tandem help` — this message"
"""The commands, as ``/tandem help`` answers them."""
STEERING = (
    "*Steering a run*\n"
    "• Each review has buttons: *Approve*, *Request changes*, *Cancel run*.\n"
    "• Or reply in the run's thread in your own words (_use eu-west-1 instead_); "
    "Tandem says how it read you, and you can correct it.\n"
    "• Risky steps always ask right before they run."
)


class RunRow(BaseModel):
    """One run in a list: what ``/tandem list`` needs to know about it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    task: str
    status: Status
    requester: str
    updated_at: float
    waiting_on: str | None = None
    """What it waits for, e.g. ``approval of step 2`` (see :func:`blocks.text.waiting_for`)."""
    link: str | None = None
    outcome: str | None = None
    """How a finished run ended (``⚠️ Finished with problems``), as its card and thread say it."""
    """Permalink to the run card or thread."""


def help_blocks() -> Blocks:
    return [
        section("*Tandem* runs ops tasks with you in the loop: it plans, you approve, it runs, you check."),
        section(COMMANDS),
        section(STEERING),
    ]


def row_line(row: RunRow) -> str:
    """``✋ Restart payments · plan review · `r1` · @ana · last change today at 14:02``"""
    icon, _, label = (row.outcome or STATUS_LABELS[row.status]).partition(" ")
    task = clip(" ".join(row.task.split()), 80).text
    if row.link and _LINK.fullmatch(row.link):
        task = f"<{row.link}|{task}>"
    doing = escape(row.waiting_on) if row.waiting_on else label.lower()
    changed = f"last change {when_day(row.updated_at)}"
    return f"{icon} *{task}* · {doing} · `{escape(row.id)}` · {mention(row.requester)} · {changed}"


def _listing(title: str, rows: Sequence[RunRow], empty: str) -> Blocks:
    if not rows:
        return [section(f"*{title}*\n_{empty}_")]
    lines = [f"*{title}* · {len(rows)}", *(row_line(row) for row in rows[:ROWS_SHOWN])]
    if len(rows) > ROWS_SHOWN:
        lines.append(f"_… and {len(rows) - ROWS_SHOWN} more_")
    return [section(chunk) for chunk in pack(lines, limit=MAX_SECTION_TEXT)]


def list_blocks(open_runs: Sequence[RunRow], waiting_on_me: Sequence[RunRow]) -> Blocks:
    """The ``/tandem list`` answer: runs waiting on the asker first, then the other open runs here
    (each run once)."""
    mine = {row.id for row in waiting_on_me}
    others = [row for row in open_runs if row.id not in mine]
    empty = "No other open runs in this channel." if mine else "No open runs in this channel."
    return [
        *_listing("Waiting on you", waiting_on_me, "Nothing is waiting on you."),
        *_listing("Other open runs in this channel" if mine else "Open in this channel", others, empty),
        context("`/tandem status &lt;run&gt;` for details · `/tandem help` for commands"),
    ]


def status_blocks(
    state: RunState,
    decisions: Sequence[DecisionLine] = (),
    *,
    approvers: str | None = None,
    waiting_on: Sequence[str] = (),
    link: str | None = None,
) -> Blocks:
    """The ``/tandem status <run>`` answer: the run card, plus a link to its thread."""
    blocks = run_card(state, decisions, approvers=approvers, waiting_on=waiting_on)
    if link and _LINK.fullmatch(link):
        blocks.append(context(f"<{link}|Open the run's thread>"))
    return blocks
