"""``runs``: every run a place may see, newest first, each with what a list of runs says beside it (how a
finished run ended, why a stopped one was stopped, how many of its messages could not be delivered).
The terminal's ``tandem runs`` renders it; a chat's ``list`` shows only the open runs
(:class:`~agent.commands.RunList`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent.models import AuditEvent, Priority, RunState, RunSummary, Status
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
    priority: Priority = "normal"
    """The priority of the question the run waits on (``normal`` when it waits on none)."""


RANK: dict[Priority, int] = {"urgent": 0, "high": 1, "normal": 2, "low": 3}


def waiting_priority(state: RunState) -> Priority:
    """The priority of the question ``state`` waits on a person for (``normal`` for any other review or none)."""
    review = state.pending
    if review is None or state.finished or review.handoff is None:
        return "normal"
    return review.handoff.priority


@dataclass(frozen=True)
class RunTable:
    """``runs [--status S] [--limit N]``: the runs, newest first, except that a run waiting on an urgent or
    high-priority question comes before the others and one waiting on a low-priority question after them (so
    a person sees first what to answer first); an empty table when there are none."""

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
        rows.append(RunRow(summary, ended, why, priority=waiting_priority(state)))
    failed = await store.undelivered_runs([row.run.id for row in rows])
    rows.sort(key=lambda row: RANK[row.priority])  # (stable: newest first within a priority)
    return RunTable(tuple(RunRow(r.run, r.ended, r.stopped_because, failed.get(r.run.id, 0), r.priority) for r in rows))
