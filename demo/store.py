"""The demo ops world kept in SQLite (tables prefixed ``demo_``), so it survives restarts.

Call :func:`migrate` when opening the database: it creates the tables and lays out
the starting incident the first time only; an existing file keeps its state.
"""

from __future__ import annotations

import queue
import sqlite3
import threading
import time
from collections.abc import Collection, Sequence
from typing import Any

from agent.errors import ToolError
from demo.world import Cache, LogLevel, LogLine, Message, Sample, Service, seed
from storage.database import Connected, Database, Migrations
from storage.db import BUSY_TIMEOUT_MS, apply_migrations, write_transaction

migrations = Migrations("tandem_demo")


@migrations()
def m001_demo_tables(db: Database) -> None:
    db.execute(
        """
        CREATE TABLE demo_services (
            name TEXT PRIMARY KEY,
            status TEXT NOT NULL,
            version TEXT NOT NULL,
            previous_version TEXT,
            replicas INTEGER NOT NULL,
            error_rate REAL NOT NULL,
            latency_p99_ms REAL NOT NULL,
            cpu REAL NOT NULL,
            requests_per_s REAL NOT NULL
        )
        """
    )
    db.execute(
        """
        CREATE TABLE demo_samples (
            id INTEGER PRIMARY KEY,
            service TEXT NOT NULL,
            at REAL NOT NULL,
            error_rate REAL NOT NULL,
            latency_p99_ms REAL NOT NULL,
            cpu REAL NOT NULL,
            requests_per_s REAL NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX demo_samples_service ON demo_samples(service, at)")
    db.execute(
        """
        CREATE TABLE demo_logs (
            id INTEGER PRIMARY KEY,
            service TEXT NOT NULL,
            at REAL NOT NULL,
            level TEXT NOT NULL,
            message TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX demo_logs_service ON demo_logs(service, at)")
    db.execute(
        """
        CREATE TABLE demo_caches (
            service TEXT PRIMARY KEY,
            keys INTEGER NOT NULL,
            hit_rate REAL NOT NULL,
            dropped_at REAL
        )
        """
    )
    db.execute(
        """
        CREATE TABLE demo_outbox (
            id INTEGER PRIMARY KEY,
            channel TEXT NOT NULL,
            text TEXT NOT NULL,
            at REAL NOT NULL
        )
        """
    )


@migrations()
def m002_seed_demo_world(db: Database) -> None:
    seed(SqliteOpsWorld(db), now=time.time())


def migrate(db: Database) -> None:
    """Create the demo tables and seed them, unless that was done before (by any process)."""
    apply_migrations(db, migrations)


class SqliteOpsWorld:
    """An :class:`demo.world.OpsWorld` on the ``demo_`` tables of ``db`` (run :func:`migrate` first).

    Tools run in worker threads, so open ``db`` with ``check_same_thread=False``. Writes go through ``db``,
    one at a time under a lock. Reads of a file go through connections of their own, at most
    :data:`READERS` at once: in WAL mode a reader never waits for a writer, so in a burst of tool calls a
    lookup does not queue behind a write that is itself waiting for the file's write lock (Tandem's own
    commits share the file). A database in memory has only ``db``: reads then take the lock too.
    """

    def __init__(self, db: Connected) -> None:
        self._db = db
        self._lock = threading.RLock()
        self._file = _file_of(db.conn)
        self._idle: queue.SimpleQueue[sqlite3.Connection] = queue.SimpleQueue()
        self._opened: list[sqlite3.Connection] = []
        self._readers = threading.BoundedSemaphore(READERS)
        self._opening = threading.Lock()  # not the writers' lock: a write may be waiting for the file
        self._closed = False

    def services(self) -> list[Service]:
        rows = self._read("SELECT * FROM demo_services ORDER BY rowid")
        return [Service.model_validate(row) for row in rows]

    def get_service(self, name: str) -> Service | None:
        rows = self._read("SELECT * FROM demo_services WHERE name = ?", [name])
        return Service.model_validate(rows[0]) if rows else None

    def save_service(self, service: Service, *, at: float, logs: Sequence[LogLine] = ()) -> None:
        with self._lock, write_transaction(self._db):
            _upsert(self._db, "demo_services", service.model_dump(), key="name")
            _insert(self._db, "demo_samples", [Sample.of(service, at).model_dump()])
            _insert(self._db, "demo_logs", [line.model_dump() for line in logs])

    def samples(self, service: str) -> list[Sample]:
        rows = self._read("SELECT * FROM demo_samples WHERE service = ? ORDER BY at, id", [service])
        return [Sample.model_validate(_without_id(row)) for row in rows]

    def logs(self, service: str, *, levels: Collection[LogLevel], limit: int) -> list[LogLine]:
        if limit <= 0 or not levels:
            return []
        marks = ", ".join("?" for _ in levels)
        rows = self._read(
            f"SELECT * FROM demo_logs WHERE service = ? AND level IN ({marks}) ORDER BY at DESC, id DESC LIMIT ?",
            [service, *levels, limit],
        )
        return [LogLine.model_validate(_without_id(row)) for row in reversed(rows)]

    def add_logs(self, lines: Sequence[LogLine]) -> None:
        with self._lock, write_transaction(self._db):
            _insert(self._db, "demo_logs", [line.model_dump() for line in lines])

    def get_cache(self, service: str) -> Cache | None:
        rows = self._read("SELECT * FROM demo_caches WHERE service = ?", [service])
        return Cache.model_validate(rows[0]) if rows else None

    def save_cache(self, cache: Cache, *, logs: Sequence[LogLine] = ()) -> None:
        with self._lock, write_transaction(self._db):
            _upsert(self._db, "demo_caches", cache.model_dump(), key="service")
            _insert(self._db, "demo_logs", [line.model_dump() for line in logs])

    def outbox(self) -> list[Message]:
        rows = self._read("SELECT * FROM demo_outbox ORDER BY id")
        return [Message.model_validate(_without_id(row)) for row in rows]

    def send(self, message: Message) -> None:
        with self._lock:
            _insert(self._db, "demo_outbox", [message.model_dump()])

    def close(self) -> None:
        """Close the reading connections (``db`` stays open: its opener closes it)."""
        with self._opening:
            self._closed = True
            opened, self._opened = self._opened, []
        for conn in opened:
            conn.close()

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        if self._file is None:
            with self._lock:
                return _rows(self._db.conn.execute(sql, params))
        with self._readers:
            conn = self._reader(self._file)
            try:
                return _rows(conn.execute(sql, params))
            finally:
                self._idle.put(conn)

    def _reader(self, file: str) -> sqlite3.Connection:
        if self._closed:
            raise ToolError("The demo world is closed")
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        with self._opening:
            if self._closed:
                raise ToolError("The demo world is closed")
            conn = sqlite3.connect(file, check_same_thread=False, isolation_level=None)
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")  # as briefly as a WAL being recovered or reset
            conn.execute("PRAGMA query_only=ON")
            self._opened.append(conn)
        return conn


READERS = 4
"""Reading connections a world opens at most (calls beyond it wait for one: reads take well under a millisecond)."""


def _file_of(conn: sqlite3.Connection) -> str | None:
    """The file of ``conn``'s main database, or None in memory (nothing another connection could open)."""
    for _seq, name, file in conn.execute("PRAGMA database_list"):
        if name == "main":
            return file or None
    return None


def _insert(db: Connected, table: str, rows: Sequence[dict[str, Any]]) -> None:
    if rows:
        columns = list(rows[0])
        sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
        db.conn.executemany(sql, [[row[c] for c in columns] for row in rows])


def _upsert(db: Connected, table: str, row: dict[str, Any], *, key: str) -> None:
    columns = list(row)
    changes = ", ".join(f"{c} = excluded.{c}" for c in columns if c != key)
    sql = (
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
        f" ON CONFLICT({key}) DO UPDATE SET {changes}"
    )
    db.conn.execute(sql, [row[c] for c in columns])


def _rows(cursor: sqlite3.Cursor) -> list[dict[str, Any]]:
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _without_id(row: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in row.items() if key != "id"}
