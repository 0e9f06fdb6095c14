"""What a serving bot asks SQLite again and again reads by index, never every row the file ever kept.

The outbox keeps every message it sent and the runs table every run that ended (until ``tandem prune``): a
delivery poll or a recovery look-up that scans them slows down with every message and every run, on the loop
that does the runs' work. Each test runs the store's own statement (caught with a trace callback) and asks
SQLite how it would read it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from storage.database import Database
from storage.db import connect
from storage.outbox import OutboxStore
from storage.runs import RunStore


@contextmanager
def _statements(db: Database) -> Iterator[list[str]]:
    seen: list[str] = []
    db.conn.set_trace_callback(seen.append)
    try:
        yield seen
    finally:
        db.conn.set_trace_callback(None)


def _plan(db: Database, call: Callable[[], Any]) -> list[str]:
    """How SQLite reads each statement ``call`` runs."""
    with _statements(db) as seen:
        call()
    assert seen, "the call ran no statement"
    return [row[3] for sql in seen for row in db.execute(f"EXPLAIN QUERY PLAN {sql}").fetchall()]


def _scans(plan: list[str], table: str) -> list[str]:
    return [step for step in plan if step.startswith(f"SCAN {table}") and "USING" not in step]


def test_delivery_polls_read_the_due_messages_by_index_not_every_message_ever_sent(tmp_path: Path) -> None:
    db = connect(tmp_path / "t.db")
    outbox = OutboxStore(db)

    due = _plan(db, lambda: outbox.due("slack", now=100.0, lease=10.0))
    busy = _plan(db, lambda: outbox.busy("slack", now=100.0))

    assert _scans(due, "outbox") == [] and any("INDEX outbox_due" in step for step in due), due
    assert _scans(busy, "outbox") == [] and any("INDEX outbox_due" in step for step in busy), busy
    db.close()


def test_recovery_finds_the_working_runs_by_index_not_every_run_ever_kept(tmp_path: Path) -> None:
    db = connect(tmp_path / "t.db")
    runs = RunStore(db)

    plan = _plan(db, runs.runs_in_flight)

    assert _scans(plan, "runs") == [] and any("INDEX runs_status" in step for step in plan), plan
    db.close()
