"""The connection storage works through, and migration sets recorded as sqlite-utils records them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlite_utils import Database as UtilsDatabase
from sqlite_utils.migrations import Migrations as UtilsMigrations

from storage.database import Database, Migrations
from storage.db import connect, migrations


def rows(db: Database) -> list[str]:
    return [name for (name,) in db.execute("SELECT name FROM t ORDER BY rowid")]


def test_atomic_with_failing_inner_block_rolls_back_only_the_inner_block() -> None:
    db = Database(sqlite3.connect(":memory:", isolation_level=None))
    db.execute("CREATE TABLE t (name TEXT)")
    with db.atomic():
        db.execute("INSERT INTO t VALUES ('kept')")
        with pytest.raises(ValueError, match="inner"), db.atomic():
            db.execute("INSERT INTO t VALUES ('dropped')")
            raise ValueError("inner")
        db.execute("INSERT INTO t VALUES ('after')")
    assert rows(db) == ["kept", "after"]
    assert not db.conn.in_transaction


def test_atomic_with_failing_block_writes_nothing() -> None:
    db = Database(sqlite3.connect(":memory:", isolation_level=None))
    db.execute("CREATE TABLE t (name TEXT)")
    with pytest.raises(ValueError, match="outer"), db.atomic():
        db.execute("INSERT INTO t VALUES ('dropped')")
        raise ValueError("outer")
    assert rows(db) == []
    assert not db.conn.in_transaction


def test_database_on_connection_with_implicit_transactions_refuses() -> None:
    with pytest.raises(ValueError, match="isolation_level=None"):
        Database(sqlite3.connect(":memory:"))


def test_migrations_recorded_by_sqlite_utils_are_not_pending_again(tmp_path: Path) -> None:
    # A file migrated by sqlite-utils' own Migrations (as every file was before) reads as up to date.
    theirs = UtilsMigrations("tandem")
    for migration in migrations.pending(Database(sqlite3.connect(":memory:", isolation_level=None))):
        theirs(name=migration.name)(migration.fn)
    path = tmp_path / "old.db"
    theirs.apply(UtilsDatabase(sqlite3.connect(path, isolation_level=None)))
    db = connect(path)
    assert migrations.pending(db) == []
    assert db.execute("SELECT count(*) FROM runs").fetchone()[0] == 0


def test_migrations_applied_here_are_read_by_sqlite_utils(tmp_path: Path) -> None:
    connect(tmp_path / "new.db").close()
    theirs = UtilsMigrations("tandem")
    for migration in migrations.pending(Database(sqlite3.connect(":memory:", isolation_level=None))):
        theirs(name=migration.name)(migration.fn)
    assert theirs.pending(UtilsDatabase(sqlite3.connect(tmp_path / "new.db"))) == []


def test_migrations_with_the_same_name_twice_refuse() -> None:
    twice = Migrations("twice")

    @twice()
    def m001(db: Database) -> None:
        db.execute("CREATE TABLE a (id INTEGER)")

    with pytest.raises(ValueError, match="already registered"):
        twice(name="m001")(m001)


def test_apply_stopping_before_an_applied_migration_refuses(tmp_path: Path) -> None:
    db = connect(tmp_path / "t.db")

    with pytest.raises(ValueError, match="already"):
        migrations.apply(db, stop_before="m001_runs_events_reviews")
