"""Retention: what ``tandem prune`` deletes, in short write transactions.

A run that finished before the cutoff goes with everything it left behind; a run that
has not finished is kept whole however old it is (it may be waiting on a person).
Rows that belong to no run (delivery dedup keys, inbox rows done with) go once they are older than the cutoff.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from agent.models import TERMINAL, PruneCounts
from storage.database import Database
from storage.db import write_transaction

# A table is one line. Rows that hang off a run (by ``run_id``) and go with it:
RUN_CHILDREN: tuple[str, ...] = ("events", "reviews", "chat_messages", "outbox", "asked", "a2a_tasks")
# Rows that age out on their own: (table, condition on ``?`` = the cutoff).
AGED: tuple[tuple[str, str], ...] = (
    ("deliveries", "at < ?"),
    ("inbox", "status <> 'pending' AND settled_at < ?"),  # requests done with (a pending one is kept)
)

__all__ = ["AGED", "BATCH", "RUN_CHILDREN", "PruneCounts", "prune"]

BATCH = 500
_FINISHED = f"status IN ({', '.join(repr(s) for s in sorted(TERMINAL))}) AND updated_at < ?"


def prune(db: Database, before: float, *, dry_run: bool, batch: int = BATCH) -> PruneCounts:
    """Delete what finished before ``before`` (a Unix time); see the module's docstring.

    Each batch (``batch`` runs with their rows, or ``batch`` aged rows) is one write
    transaction, so a large prune never holds the write lock for long, and a run is
    deleted whole or not at all.
    """
    if dry_run:
        return PruneCounts(before=before, dry_run=True, rows=_prunable(db, before))
    rows = dict.fromkeys(("runs", *RUN_CHILDREN, *(table for table, _ in AGED)), 0)
    _in_batches(partial(_delete_finished_runs, db, before, batch, rows), batch)
    for table, where in AGED:
        _in_batches(partial(_delete_aged, db, table, where, before, batch, rows), batch)
    return PruneCounts(before=before, dry_run=False, rows=rows)


def _in_batches(step: Callable[[], int], batch: int) -> None:
    while step() == batch:
        pass


def _delete_finished_runs(db: Database, before: float, batch: int, rows: dict[str, int]) -> int:
    with write_transaction(db):
        ids = [r[0] for r in db.execute(f"SELECT id FROM runs WHERE {_FINISHED} LIMIT ?", [before, batch]).fetchall()]
        if ids:
            marks = ", ".join("?" for _ in ids)
            for table in RUN_CHILDREN:
                rows[table] += db.execute(f"DELETE FROM {table} WHERE run_id IN ({marks})", ids).rowcount
            rows["runs"] += db.execute(f"DELETE FROM runs WHERE id IN ({marks})", ids).rowcount
    return len(ids)


def _delete_aged(db: Database, table: str, where: str, before: float, batch: int, rows: dict[str, int]) -> int:
    with write_transaction(db):
        deleted = db.execute(
            f"DELETE FROM {table} WHERE rowid IN (SELECT rowid FROM {table} WHERE {where} LIMIT ?)", [before, batch]
        ).rowcount
    rows[table] += deleted
    return deleted


def _prunable(db: Database, before: float) -> dict[str, int]:
    def count(sql: str) -> int:
        return int(db.execute(sql, [before]).fetchone()[0])

    with db.atomic():  # one snapshot for every count
        rows = {"runs": count(f"SELECT count(*) FROM runs WHERE {_FINISHED}")}
        for table in RUN_CHILDREN:
            rows[table] = count(f"SELECT count(*) FROM {table} WHERE run_id IN (SELECT id FROM runs WHERE {_FINISHED})")
        for table, where in AGED:
            rows[table] = count(f"SELECT count(*) FROM {table} WHERE {where}")
    return rows
