"""Opening the SQLite file: WAL, synchronous=FULL, migrations.

Many processes may open one fresh file at the same moment (replicas, a CLI beside the
bot). So the busy timeout is set before anything else, switching to WAL is retried
while another process holds the file, and migrations run under the database's own
write lock (:func:`apply_migrations`): one process migrates, the others wait for it and
then find nothing left to do.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol, TypeVar

from agent.models import Lesson
from storage.database import FULL, NORMAL, Connected, Database, Migrations

T = TypeVar("T")
D = TypeVar("D", bound=Connected, contravariant=True)
DB = TypeVar("DB", bound=Connected)

BUSY_TIMEOUT_MS = 5000
# How long a starting process waits for another one to finish migrating the same file.
MIGRATION_WAIT_MS = 60_000

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


@migrations()
def m005_step_leases(db: Database) -> None:
    """Who works on a run right now, and until when (renewed while a step runs; see Engine)."""
    db.execute("ALTER TABLE runs ADD COLUMN lease_owner TEXT")
    db.execute("ALTER TABLE runs ADD COLUMN lease_until REAL")


@migrations()
def m006_report_posts(db: Database) -> None:
    """Report posts, scheduled and claimed like deadlines: one row per channel and time (see storage.posts)."""
    db.execute(
        """
        CREATE TABLE report_posts (
            key TEXT PRIMARY KEY,
            channel TEXT NOT NULL,
            since REAL NOT NULL,
            until REAL NOT NULL,
            manual INTEGER NOT NULL DEFAULT 0,
            status TEXT NOT NULL DEFAULT 'scheduled',
            created_at REAL NOT NULL,
            posted_at REAL
        )
        """
    )
    db.execute("CREATE INDEX report_posts_due ON report_posts(until) WHERE status = 'scheduled'")


@migrations()
def m007_lessons(db: Database) -> None:
    """What corrections taught (see storage.lessons), with a full-text index over their words."""
    db.execute(
        """
        CREATE TABLE lessons (
            id TEXT PRIMARY KEY,
            scope TEXT NOT NULL,
            key TEXT NOT NULL,
            created_at REAL NOT NULL,
            data TEXT NOT NULL,
            forgotten_by TEXT,
            forgotten_at REAL,
            replaced_by TEXT
        )
        """
    )
    db.execute("CREATE INDEX lessons_key ON lessons(key) WHERE forgotten_at IS NULL AND replaced_by IS NULL")
    db.execute("CREATE INDEX lessons_scope ON lessons(scope, created_at)")
    db.execute("CREATE VIRTUAL TABLE lessons_fts USING fts5(id UNINDEXED, words, tokenize='porter unicode61')")


@migrations()
def m008_rule_suspensions(db: Database) -> None:
    """A rule whose step was later corrected or rejected is suspended: kept, with who, when and why."""
    db.execute("ALTER TABLE rules ADD COLUMN suspended_by TEXT")
    db.execute("ALTER TABLE rules ADD COLUMN suspended_at REAL")
    db.execute("ALTER TABLE rules ADD COLUMN suspended_reason TEXT")
    # The "always allow" offer reads a gate's latest decisions (storage/streaks.py) on every gated step.
    db.execute("CREATE INDEX events_gate ON events(json_extract(payload, '$.gate'), at) WHERE kind = 'decided'")
    db.execute(
        "CREATE INDEX events_suspension ON events(json_extract(payload, '$.suspension.tool'), at)"
        " WHERE kind = 'suspend_rule'"
    )


@migrations()
def m009_rule_scopes(db: Database) -> None:
    """A rule covers its tool for the target values it was given on (``target``, JSON); NULL is tool-wide,
    as every rule stored before is. Widening a rule to every target keeps who did it and when."""
    db.execute("ALTER TABLE rules ADD COLUMN target TEXT")
    db.execute("ALTER TABLE rules ADD COLUMN widened_by TEXT")
    db.execute("ALTER TABLE rules ADD COLUMN widened_at REAL")


def _busy(exc: sqlite3.OperationalError) -> bool:
    code: int = getattr(exc, "sqlite_errorcode", 0)  # extended codes (e.g. BUSY_SNAPSHOT) share the low byte
    return (code & 0xFF) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def retry_busy(fn: Callable[[], T], *, wait_ms: int = BUSY_TIMEOUT_MS) -> T:
    """``fn()``, retried while SQLite answers "database is locked" without waiting itself.

    The busy timeout covers most waits, but SQLite returns SQLITE_BUSY at once where waiting
    could deadlock (e.g. a connection that must upgrade a read lock, as switching to WAL does).
    """
    deadline = time.monotonic() + wait_ms / 1000
    pause = 0.005
    while True:
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            if not _busy(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.1)


@contextmanager
def write_transaction(db: Connected, *, wait_ms: int = BUSY_TIMEOUT_MS) -> Iterator[None]:
    """One transaction holding the write lock from its first statement (``BEGIN IMMEDIATE``);
    inside an open transaction, part of that one.

    Taking the lock up front means a read inside the transaction can never go stale before
    its write, and other processes wait for the lock (up to ``wait_ms``) instead of failing.
    """
    conn = db.conn
    if conn.in_transaction:  # inside a caller's transaction (e.g. a migration seeding data): it is in charge
        yield
        return
    previous = int(conn.execute("PRAGMA busy_timeout").fetchone()[0])
    conn.execute(f"PRAGMA busy_timeout={int(wait_ms)}")
    try:
        retry_busy(lambda: conn.execute("BEGIN IMMEDIATE"), wait_ms=wait_ms)
    finally:
        conn.execute(f"PRAGMA busy_timeout={previous}")
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    try:
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


@contextmanager
def unsynced(db: Connected) -> Iterator[None]:
    """Commits inside do not wait for the disk (``synchronous=NORMAL``; WAL): a killed process loses none
    of them, a power cut may lose the last ones. The next commit that waits for the disk takes them along
    (the WAL is written in order). For writes whose loss after a power cut leaves a state a crash can leave
    anyway. The connection's own level (``db.synchronous``: FULL, as :func:`connect` sets it) is put back after."""
    level = getattr(db, "synchronous", FULL)
    db.conn.execute(f"PRAGMA synchronous={min(level, NORMAL)}")
    try:
        yield
    finally:
        db.conn.execute(f"PRAGMA synchronous={level}")


class _Migration(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def transactional(self) -> bool: ...


class MigrationSet(Protocol[D]):
    """:class:`storage.database.Migrations`, or sqlite-utils' own (a test's set on its ``Database``)."""

    def pending(self, db: D) -> Sequence[_Migration]: ...
    def apply(self, db: D) -> None: ...


def apply_migrations(db: DB, pending: MigrationSet[DB]) -> None:
    """Apply ``pending``'s migrations, once, however many processes start together.

    A read shows whether anything is pending (an up-to-date file takes no write lock).
    If so, the check and every migration run in one ``BEGIN IMMEDIATE`` transaction: the
    process that gets the lock migrates; the others wait for it, re-check under the lock
    and find nothing left. The database's own lock works for ``:memory:`` and needs no
    lock file beside the database. A failed migration rolls the whole set back.
    """
    if not pending.pending(db):
        return
    with write_transaction(db, wait_ms=MIGRATION_WAIT_MS):
        outside = [m.name for m in pending.pending(db) if not m.transactional]
        if outside:
            raise RuntimeError(f"Migrations {outside} cannot run inside a transaction; apply them on their own.")
        pending.apply(db)  # each migration's own transaction nests as a savepoint


def connect(path: str | Path, *, check_same_thread: bool = True) -> Database:
    """Open (and migrate) the database. ``:memory:`` works for tests."""
    if str(path) != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), check_same_thread=check_same_thread, isolation_level=None)
    # First, so that every statement after it waits for other processes instead of failing.
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    # WAL is a property of the file: on a fresh one the first process to get the lock switches it.
    retry_busy(lambda: conn.execute("PRAGMA journal_mode=WAL").fetchone())
    # A decision acknowledged to a person must be on disk.
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA recursive_triggers=ON")  # as sqlite-utils set it on every connection it wrapped
    db = Database(conn)
    apply_migrations(db, migrations)
    return db


@migrations()
def m010_lesson_keys(db: Database) -> None:
    """Lessons are keyed by what they changed (a value, a step's place, a presentation wish): stored ones get
    the new key, so a later correction of the same thing replaces them and a different one never does."""
    rows = db.execute("SELECT id, data FROM lessons").fetchall()
    for lesson_id, data in rows:
        db.execute("UPDATE lessons SET key = ? WHERE id = ?", [Lesson.model_validate_json(data).key, lesson_id])


@migrations()
def m011_inbox(db: Database) -> None:
    """Requests kept before they are acknowledged (see :mod:`agent.inbox`): one row per platform key, pending
    (held by its process until ``lease_until``) until its work is done."""
    db.execute(
        "CREATE TABLE inbox (key TEXT PRIMARY KEY, source TEXT NOT NULL, body TEXT NOT NULL,"
        " status TEXT NOT NULL DEFAULT 'pending', attempts INTEGER NOT NULL DEFAULT 0,"
        " received_at REAL NOT NULL, lease_until REAL NOT NULL, settled_at REAL)"
    )
    db.execute("CREATE INDEX inbox_pending ON inbox (source, lease_until) WHERE status = 'pending'")


@migrations()
def m012_unshown_cards(db: Database) -> None:
    """Run cards given up on (a ``started`` row that failed) are looked for at every scheduler tick: an index of
    those few rows, so the look never reads the whole outbox."""
    db.execute("CREATE INDEX outbox_unshown ON outbox(run_id) WHERE kind = 'started' AND status = 'failed'")


@migrations()
def m016_api_tokens(db: Database) -> None:
    """Tokens for software calling the API (see :mod:`agent.tokens`): kept by name, found by the SHA-256 of the
    token (never the token itself); a revoked one stays, for the audit trail."""
    db.execute(
        "CREATE TABLE api_tokens (name TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE, scopes TEXT NOT NULL,"
        " webhook_secret TEXT NOT NULL, created_by TEXT NOT NULL, created_at REAL NOT NULL, expires_at REAL,"
        " revoked_by TEXT, revoked_at REAL)"
    )


@migrations()
def m017_asked(db: Database) -> None:
    """Handoffs asked through the API: the run that asks each (pruned with it), the token that asked
    it (only it may read it), and its idempotency key, unique per token (asking again with it returns the
    same handoff)."""
    db.execute(
        "CREATE TABLE asked (run_id TEXT PRIMARY KEY, token TEXT NOT NULL, idempotency_key TEXT, callback_url TEXT,"
        " created_at REAL NOT NULL)"
    )
    db.execute("CREATE UNIQUE INDEX asked_key ON asked (token, idempotency_key) WHERE idempotency_key IS NOT NULL")


@migrations()
def m020_a2a_tasks(db: Database) -> None:
    """Runs started over A2A: the token that started each (only it may see it), its task's context id, and the
    message that started it, unique per token (that message sent again finds the run instead of starting one)."""
    db.execute(
        "CREATE TABLE a2a_tasks (run_id TEXT PRIMARY KEY, token TEXT NOT NULL, context_id TEXT NOT NULL,"
        " message_id TEXT NOT NULL, created_at REAL NOT NULL)"
    )
    db.execute("CREATE UNIQUE INDEX a2a_tasks_message ON a2a_tasks (token, message_id)")
