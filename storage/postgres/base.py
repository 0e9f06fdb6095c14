"""What the PostgreSQL repositories share: the connection pool."""

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
