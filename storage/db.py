"""Opening the SQLite file: WAL, synchronous=FULL, migrations."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

migrations = Migrations("tandem")


@migrations()
def m001_runs_events_reviews(db: Database) -> None:
    db.execute(
        """
        CREATE TABLE runs (
            id TEXT PRIMARY KEY,
            task TEXT NOT NULL,
            requester TEXT NOT NULL,
            status TEXT NOT NULL,
            channel TEXT,
            pending_review TEXT,
            version INTEGER NOT NULL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            state TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX runs_status ON runs(status)")
    db.execute(
        """
        CREATE TABLE events (
            id INTEGER PRIMARY KEY,
            run_id TEXT NOT NULL,
            at REAL NOT NULL,
            actor TEXT NOT NULL,
            kind TEXT NOT NULL,
            payload TEXT
        )
        """
    )
    db.execute("CREATE INDEX events_run ON events(run_id)")
    db.execute(
        """
        CREATE TABLE reviews (
            id TEXT PRIMARY KEY,
            run_id TEXT NOT NULL,
            anchor TEXT NOT NULL,
            step INTEGER,
            status TEXT NOT NULL,
            created_at REAL NOT NULL,
            answered_at REAL,
            answered_by TEXT,
            answer TEXT
        )
        """
    )
    db.execute("CREATE INDEX reviews_run ON reviews(run_id)")
    db.execute(
        """
        CREATE TABLE deliveries (
            key TEXT PRIMARY KEY,
            at REAL NOT NULL
        )
        """
    )


@migrations()
def m002_chat_messages(db: Database) -> None:
    """Where each run's card and each review were posted, so they can be edited later."""
    db.execute(
        """
        CREATE TABLE chat_messages (
            key TEXT PRIMARY KEY,
            run_id TEXT NOT NULL,
            channel TEXT NOT NULL,
            ts TEXT NOT NULL,
            blocks TEXT
        )
        """
    )
    db.execute("CREATE INDEX chat_messages_run ON chat_messages(run_id)")
    db.execute("ALTER TABLE runs ADD COLUMN thread TEXT")
    db.execute("CREATE INDEX runs_thread ON runs(thread)")


@migrations()
def m003_deadlines_and_rules(db: Database) -> None:
    """Review deadlines the scheduler finds by index; channel rules ("always allow")."""
    db.execute("ALTER TABLE reviews ADD COLUMN deadline REAL")
    db.execute("ALTER TABLE reviews ADD COLUMN remind_at REAL")
    db.execute("CREATE INDEX reviews_deadline ON reviews(deadline) WHERE status = 'pending'")
    db.execute("CREATE INDEX reviews_remind ON reviews(remind_at) WHERE status = 'pending'")
    db.execute(
        """
        CREATE TABLE rules (
            id TEXT PRIMARY KEY,
            channel TEXT NOT NULL,
            tool TEXT NOT NULL,
            created_by TEXT NOT NULL,
            created_at REAL NOT NULL,
            revoked_by TEXT,
            revoked_at REAL
        )
        """
    )
    db.execute("CREATE INDEX rules_channel ON rules(channel, tool) WHERE revoked_at IS NULL")


@migrations()
def m004_outbox(db: Database) -> None:
    """Messages transitions cause, written in their transaction and delivered after (see storage.outbox)."""
    db.execute(
        """
        CREATE TABLE outbox (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            run_id TEXT NOT NULL,
            channel TEXT NOT NULL,
            kind TEXT NOT NULL,
            message TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending',
            attempts INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL,
            next_at REAL NOT NULL,
            started_at REAL,
            sent_at REAL,
            error TEXT
        )
        """
    )
    db.execute("CREATE INDEX outbox_due ON outbox(channel, next_at) WHERE status IN ('pending', 'sending')")
    db.execute("CREATE INDEX outbox_run ON outbox(run_id)")
    # At most one card update waits per run: later transitions coalesce into it.
    db.execute("CREATE UNIQUE INDEX outbox_card ON outbox(run_id) WHERE kind = 'card' AND status = 'pending'")


def connect(path: str | Path, *, check_same_thread: bool = True) -> Database:
    """Open (and migrate) the database. ``:memory:`` works for tests."""
    if str(path) != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), check_same_thread=check_same_thread, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    # A decision acknowledged to a person must be on disk.
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA busy_timeout=5000")
    conn.execute("PRAGMA foreign_keys=ON")
    db = Database(conn)
    migrations.apply(db)
    return db
