"""Writes that do not wait for the disk leave the connection waiting for it again: every other commit still syncs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from agent.models.inbox import Inbound
from agent.models.tokens import AskedRecord, TaskRecord
from storage import inbox, tokens
from storage.database import Database
from storage.db import connect
from storage.outbox import OutboxStore

FULL = 2
AT = 1_700_000_000.0


def keep_asked(db: Database) -> None:
    record = AskedRecord(id="r1", token="ci", idempotency_key="k1", callback_url=None, created_at=AT)
    assert tokens.keep_asked(db, record).id == "r1"
    again = AskedRecord(id="r2", token="ci", idempotency_key="k1", callback_url=None, created_at=AT)
    assert tokens.keep_asked(db, again).id == "r1", "the key asked before keeps its first handoff"


def keep_task(db: Database) -> None:
    record = TaskRecord(id="t1", token="ci", context_id="c1", message_id="m1", created_at=AT)
    assert tokens.keep_task(db, record).id == "t1"
    again = TaskRecord(id="t2", token="ci", context_id="c1", message_id="m1", created_at=AT)
    assert tokens.keep_task(db, again).id == "t1"


def settle(db: Database) -> None:
    inbox.receive(db, Inbound(key="k", source="slack", body="{}", received_at=AT), AT + 10)
    inbox.settle(db, "k", "done", AT + 1)
    assert db.execute("SELECT status FROM inbox WHERE key = 'k'").fetchone()[0] == "done"


def sent(db: Database) -> None:
    OutboxStore(db).sent(1, AT)  # no such row: nothing changes, and the connection is as before


@pytest.mark.parametrize("write", [keep_asked, keep_task, settle, sent])
def test_a_write_that_does_not_wait_for_the_disk_leaves_every_later_commit_synced(
    tmp_path: Path, write: Callable[[Database], None]
) -> None:
    db = connect(tmp_path / "t.db")
    write(db)
    assert db.execute("PRAGMA synchronous").fetchone()[0] == FULL
    db.close()
