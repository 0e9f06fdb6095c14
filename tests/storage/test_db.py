"""Opening the database: busy timeout first, WAL retried, migrations applied once under the write lock."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import storage.db
from agent.errors import ConcurrentUpdate
from agent.models import RunState
from storage.database import Database, Migrations
from storage.db import apply_migrations, connect, migrations, retry_busy, unsynced
from storage.runs import RunStore


def table_names(db: Database) -> set[str]:
    return {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_connect_with_fresh_file_sets_busy_timeout_wal_and_migrates(tmp_path: Path) -> None:
    db = connect(tmp_path / "t.db")
    assert db.execute("PRAGMA busy_timeout").fetchone()[0] == 5000
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert migrations.pending(db) == []
    db.close()


def test_connect_with_memory_database_migrates() -> None:
    db = connect(":memory:")
    assert migrations.pending(db) == []
    assert {"runs", "events", "reviews", "deliveries", "chat_messages", "rules"} <= table_names(db)
    db.close()


def test_connect_to_migrated_file_while_another_writes_takes_no_write_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.db"
    connect(path).close()
    monkeypatch.setattr(storage.db, "MIGRATION_WAIT_MS", 100)
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        # Had connect wanted the write lock, it would fail here (database is locked).
        db = connect(path)
        assert migrations.pending(db) == []
        db.close()
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_retry_busy_with_lock_released_between_attempts_succeeds(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    opener = sqlite3.connect(path, isolation_level=None, timeout=0)  # SQLite itself will not wait
    attempts: list[int] = []

    def switch_to_wal() -> str:
        attempts.append(1)
        if len(attempts) == 2:
            holder.execute("COMMIT")
        return str(opener.execute("PRAGMA journal_mode=WAL").fetchone()[0])

    assert retry_busy(switch_to_wal) == "wal"
    assert len(attempts) == 2
    holder.close()
    opener.close()


def test_retry_busy_with_lock_never_released_raises_locked(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    opener = sqlite3.connect(path, isolation_level=None, timeout=0)
    with pytest.raises(sqlite3.OperationalError, match="database is locked"):
        retry_busy(lambda: opener.execute("PRAGMA journal_mode=WAL"), wait_ms=50)
    holder.execute("ROLLBACK")
    holder.close()
    opener.close()


def test_retry_busy_with_other_error_raises_at_once() -> None:
    conn = sqlite3.connect(":memory:")
    attempts: list[int] = []

    def broken() -> None:
        attempts.append(1)
        conn.execute("SELECT * FROM nowhere")

    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        retry_busy(broken)
    assert len(attempts) == 1


def test_apply_migrations_with_failing_migration_rolls_back_the_whole_set() -> None:
    failing = Migrations("failing")

    @failing()
    def m001_table(db: Database) -> None:
        db.execute("CREATE TABLE first (id INTEGER)")

    @failing()
    def m002_broken(db: Database) -> None:
        raise ValueError("bad migration")

    db = Database(sqlite3.connect(":memory:", isolation_level=None))
    with pytest.raises(ValueError, match="bad migration"):
        apply_migrations(db, failing)
    assert not db.conn.in_transaction
    assert "first" not in table_names(db)
    assert [m.name for m in failing.pending(db)] == ["m001_table", "m002_broken"]


def test_apply_migrations_with_non_transactional_migration_refuses() -> None:
    vacuum = Migrations("vacuum")

    @vacuum(transactional=False)
    def m001_vacuum(db: Database) -> None:
        db.execute("VACUUM")

    db = Database(sqlite3.connect(":memory:", isolation_level=None))
    with pytest.raises(RuntimeError, match="cannot run inside a transaction"):
        apply_migrations(db, vacuum)
    assert not db.conn.in_transaction


@pytest.mark.parametrize("fails", [False, True])
def test_commit_not_waiting_for_disk_leaves_the_connection_at_synchronous_full(tmp_path: Path, fails: bool) -> None:
    store = RunStore(connect(tmp_path / "t.db"))
    state = RunState(id="r1", task="restart payments", requester="U1", created_at=1.0, updated_at=1.0)
    store.create(state, [])
    version = 0 if fails else 1  # a stale version: the commit raises and writes nothing
    try:
        store.commit(state.model_copy(update={"phase": "executing"}), version, [], durable=False)
    except ConcurrentUpdate:
        assert fails
    assert store.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL, for every other write


@pytest.mark.parametrize(("level", "inside"), [("FULL", 1), ("NORMAL", 1), ("OFF", 0)])
def test_unsynced_puts_back_the_connections_own_level(tmp_path: Path, level: str, inside: int) -> None:
    """A commit that need not wait for the disk never makes it wait more than the connection does, and the
    connection's level is what it was after (the bench's ``--synchronous`` diagnostic sets one of its own)."""
    db = connect(tmp_path / "t.db")
    assert db.execute("PRAGMA synchronous").fetchone()[0] == db.synchronous == 2  # FULL, as connect sets it
    db.execute(f"PRAGMA synchronous={level}")
    db.synchronous = before = db.execute("PRAGMA synchronous").fetchone()[0]
    for _ in range(2):  # the second time too: nothing put FULL back in between
        with unsynced(db):
            assert db.execute("PRAGMA synchronous").fetchone()[0] == inside
        assert db.execute("PRAGMA synchronous").fetchone()[0] == before
    db.close()
