"""``runs``: every run a place may see, newest first, each with what a list of runs says beside it (how a
finished run ended, why a stopped one was stopped, how many of its messages could not be delivered).
The terminal's ``tandem runs`` renders it; a chat's ``list`` shows only the open runs
(:class:`~agent.commands.RunList`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent.models import AuditEvent, RunSummary, Status
from agent.outcome import Outcome, outcome
from agent.policy import SafetyPolicy
from agent.ports import Store

__all__ = ["RunRow", "RunTable", "run_table", "stop_reason"]


@dataclass(frozen=True)
class RunRow:
    """One run of the table. ``ended``: how a done run ended (None for any other status); ``stopped_because``:
    why a cancelled run was stopped, as its last stop said ("" when it said nothing or was not stopped);
    ``undelivered``: how many of its messages could not be delivered."""

    run: RunSummary
    ended: Outcome | None = None
    stopped_because: str = ""
    undelivered: int = 0


@dataclass(frozen=True)
class RunTable:
    """``runs [--status S] [--limit N]``: the runs, newest first (an empty table when there are none)."""

    rows: tuple[RunRow, ...]


def stop_reason(events: Sequence[AuditEvent]) -> str:
    """Why a cancelled run was stopped, as its last stop said (empty when it said nothing)."""
    for line in reversed(events):
        if line.kind == "cancel_requested":
            return str(line.payload.get("reason") or "")
    return ""


async def run_table(
    store: Store, safety: SafetyPolicy, where: str | None, *, status: Status | None = None, limit: int = 50
) -> RunTable:
    """The runs ``where`` may see (every place's from the terminal, ``None``), newest first, of ``status``
    (any when ``None``), at most ``limit``."""
    rows = []
    for summary in await store.list_runs(status=status, channel=where, limit=limit):
        state, _ = await store.load(summary.id)
        if not safety.may_see(state, where):
            continue
        ended = outcome(state) if summary.status == "done" else None
        why = stop_reason(await store.events(summary.id)) if summary.status == "cancelled" else ""
        rows.append(RunRow(summary, ended, why))
    failed = await store.undelivered_runs([row.run.id for row in rows])
    return RunTable(tuple(RunRow(r.run, r.ended, r.stopped_because, failed.get(r.run.id, 0)) for r in rows))
