"""The demo ops world kept in SQLite (tables prefixed ``demo_``), so it survives restarts.

Call :func:`migrate` when opening the database: it creates the tables and lays out
the starting incident the first time only; an existing file keeps its state.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

from demo.world import Cache, LogLevel, LogLine, Message, Sample, Service, seed
from storage.database import Connected, Database, Migrations
from storage.db import apply_migrations, write_transaction

if TYPE_CHECKING:
    from sqlite_utils.db import Table

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

    Calls are serialized with a lock: tools run in worker threads, so open the
    connection with ``check_same_thread=False``. Its rows are read and written through sqlite-utils'
    tables, imported when a tool first touches the world (see :mod:`storage.database`).
    """

    def __init__(self, db: Connected) -> None:
        self._db = db
        self._tables: Any = None
        self._lock = threading.RLock()

    def services(self) -> list[Service]:
        with self._lock:
            return [Service.model_validate(row) for row in self._table("demo_services").rows_where(order_by="rowid")]

    def get_service(self, name: str) -> Service | None:
        with self._lock:
            rows = list(self._table("demo_services").rows_where("name = ?", [name]))
        return Service.model_validate(rows[0]) if rows else None

    def save_service(self, service: Service, *, at: float, logs: Sequence[LogLine] = ()) -> None:
        with self._lock, write_transaction(self._db):
            self._table("demo_services").upsert(service.model_dump(), pk="name")
            self._table("demo_samples").insert(Sample.of(service, at).model_dump())
            self._insert_logs(logs)

    def samples(self, service: str) -> list[Sample]:
        with self._lock:
            rows = self._table("demo_samples").rows_where("service = ?", [service], order_by="at, id")
            return [Sample.model_validate(_without_id(row)) for row in rows]

    def logs(self, service: str, *, levels: Collection[LogLevel], limit: int) -> list[LogLine]:
        if limit <= 0 or not levels:
            return []
        marks = ", ".join("?" for _ in levels)
        with self._lock:
            rows = self._table("demo_logs").rows_where(
                f"service = ? AND level IN ({marks})", [service, *levels], order_by="at DESC, id DESC", limit=limit
            )
            lines = [LogLine.model_validate(_without_id(row)) for row in rows]
        return lines[::-1]

    def add_logs(self, lines: Sequence[LogLine]) -> None:
        with self._lock, write_transaction(self._db):
            self._insert_logs(lines)

    def get_cache(self, service: str) -> Cache | None:
        with self._lock:
            rows = list(self._table("demo_caches").rows_where("service = ?", [service]))
        return Cache.model_validate(rows[0]) if rows else None

    def save_cache(self, cache: Cache, *, logs: Sequence[LogLine] = ()) -> None:
        with self._lock, write_transaction(self._db):
            self._table("demo_caches").upsert(cache.model_dump(), pk="service")
            self._insert_logs(logs)

    def outbox(self) -> list[Message]:
        with self._lock:
            rows = self._table("demo_outbox").rows_where(order_by="id")
            return [Message.model_validate(_without_id(row)) for row in rows]

    def send(self, message: Message) -> None:
        with self._lock:
            self._table("demo_outbox").insert(message.model_dump())

    def _insert_logs(self, lines: Sequence[LogLine]) -> None:
        if lines:
            self._table("demo_logs").insert_all([line.model_dump() for line in lines])

    def _table(self, name: str) -> Table:
        if self._tables is None:
            from sqlite_utils import Database as Tables

            self._tables = Tables(self._db.conn)
        table: Table = self._tables.table(name)
        return table


def _without_id(row: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in row.items() if key != "id"}
