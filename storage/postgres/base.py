"""What the PostgreSQL repositories share: the connection pool, and how a run is locked."""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

Pool = AsyncConnectionPool[AsyncConnection[Any]]


class PoolUser:
    """Base of the repositories: they reach the database through one pool of autocommit connections
    (a write of several statements opens its own transaction)."""

    _pool_or_none: Pool | None = None

    @property
    def pool(self) -> Pool:
        if self._pool_or_none is None:
            raise RuntimeError("PgStore.open() was not awaited")
        return self._pool_or_none


async def lock_run(conn: AsyncConnection[Any], run_id: str) -> int | None:
    """Lock the run's row until the transaction ends and return its version (None: no such run).

    Every write to a run's state takes this lock first, so writes to one run are serial
    across every replica, and always lock the run before its reviews (no deadlock).
    """
    cur = await conn.execute("SELECT version FROM runs WHERE id = %s FOR UPDATE", [run_id])
    row = await cur.fetchone()
    return None if row is None else int(row[0])
