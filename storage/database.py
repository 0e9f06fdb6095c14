"""The SQLite connection storage works through, and migration sets that import sqlite-utils only to migrate.

Importing sqlite-utils imports numpy whenever numpy is installed (to map numpy scalars to column types
when it creates tables from Python values, which storage never does), and click, pluggy and dateutil with
it: about a tenth of a second on every process start, in a process that may only resume one run. What
storage needs of a connection opened in autocommit mode (:func:`storage.db.connect`) is ``execute`` and
``atomic``, so :class:`Database` gives exactly those, as sqlite-utils does. Migrations are still applied by
sqlite-utils (its ``Migrations`` and its ``_sqlite_migrations`` table), imported only when one is pending:
a process opening an up-to-date file reads which migrations were applied and imports nothing more.
"""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

NORMAL, FULL = 1, 2
"""``PRAGMA synchronous`` levels, as SQLite reads them back."""
MIGRATIONS_TABLE = "_sqlite_migrations"  # sqlite-utils' own, so files migrated before keep their record


class Connected(Protocol):
    """Anything holding a SQLite connection: :class:`Database`, or sqlite-utils' ``Database`` in tests."""

    @property
    def conn(self) -> sqlite3.Connection: ...


class Database:
    """A SQLite connection opened with ``isolation_level=None``: each statement commits on its own unless
    :meth:`atomic` (or ``BEGIN``) opened a transaction. The same behaviour as sqlite-utils' ``execute``
    and ``atomic`` on such a connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        if conn.isolation_level is not None:
            raise ValueError("open the connection with isolation_level=None (autocommit)")
        self.conn = conn
        self.synchronous = FULL
        """The connection's ``PRAGMA synchronous``, which :func:`storage.db.unsynced` puts back (say it here
        when setting another)."""

    def execute(self, sql: str, parameters: Sequence[Any] | Mapping[str, Any] = ()) -> sqlite3.Cursor:
        return self.conn.execute(sql, parameters)

    @contextmanager
    def atomic(self) -> Iterator[Database]:
        """One transaction around the block; inside an open one, a savepoint rolled back alone on error."""
        if self.conn.in_transaction:
            savepoint = f"tandem_{secrets.token_hex(8)}"
            self.conn.execute(f"SAVEPOINT {savepoint}")
            try:
                yield self
            except BaseException:
                if self.conn.in_transaction:  # an error may already have ended the whole transaction
                    self.conn.execute(f"ROLLBACK TO SAVEPOINT {savepoint}")
                    self.conn.execute(f"RELEASE SAVEPOINT {savepoint}")
                raise
            self.conn.execute(f"RELEASE SAVEPOINT {savepoint}")
            return
        self.conn.execute("BEGIN")
        try:
            yield self
        except BaseException:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise
        try:
            self.conn.execute("COMMIT")
        except BaseException:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


MigrationFn = Callable[[Database], None]


@dataclass(frozen=True)
class Migration:
    name: str
    fn: MigrationFn
    transactional: bool = True


class Migrations:
    """A named, ordered set of migrations, declared as sqlite-utils' are (``@migrations()`` on a function
    taking the :class:`Database`) and recorded in the same table, so either reads the other's record."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._migrations: list[Migration] = []

    def __call__(self, *, name: str | None = None, transactional: bool = True) -> Callable[[MigrationFn], MigrationFn]:
        def register(fn: MigrationFn) -> MigrationFn:
            migration = Migration(name or fn.__name__, fn, transactional)
            if any(m.name == migration.name for m in self._migrations):
                raise ValueError(f"Migration {migration.name!r} is already registered in set {self.name!r}")
            self._migrations.append(migration)
            return fn

        return register

    def applied(self, db: Connected) -> set[str]:
        conn = db.conn
        known = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
        if conn.execute(known, [MIGRATIONS_TABLE]).fetchone() is None:
            return set()
        rows = conn.execute(f"SELECT name FROM {MIGRATIONS_TABLE} WHERE migration_set = ?", [self.name])
        return {str(name) for (name,) in rows}

    def pending(self, db: Connected) -> list[Migration]:
        """The migrations not applied yet, in order (a read; nothing is written)."""
        done = self.applied(db)
        return [m for m in self._migrations if m.name not in done]

    def apply(self, db: Connected, *, stop_before: str | None = None) -> None:
        """Apply the pending migrations through sqlite-utils, each in its own transaction with its record."""
        if stop_before is None and not self.pending(db):
            return
        from sqlite_utils import Database as UtilsDatabase  # only here: see the module's docstring
        from sqlite_utils.migrations import Migrations as UtilsMigrations

        ours = db if isinstance(db, Database) else Database(db.conn)
        theirs = UtilsMigrations(self.name)
        for m in self._migrations:
            theirs(name=m.name, transactional=m.transactional)(_on(ours, m.fn))
        theirs.apply(UtilsDatabase(db.conn), stop_before=stop_before)


def _on(db: Database, fn: MigrationFn) -> Callable[[Any], None]:
    """``fn`` run on ``db`` whatever sqlite-utils passes (its own wrapper of the same connection)."""

    def run(_: Any) -> None:
        fn(db)

    run.__name__ = fn.__name__
    return run
