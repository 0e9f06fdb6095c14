"""What the PostgreSQL repositories share: the connection pool."""

from __future__ import annotations

from collections.abc import Sequence
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

    async def fetch_one(self, sql: str, args: Sequence[Any] | dict[str, Any]) -> tuple[Any, ...] | None:
        """The first row of one statement, on a connection of the pool."""
        async with self.pool.connection() as conn:
            cur = await conn.execute(sql, args)
            row: tuple[Any, ...] | None = await cur.fetchone()
            return row

    async def fetch_all(self, sql: str, args: Sequence[Any] | dict[str, Any]) -> list[tuple[Any, ...]]:
        """Every row of one statement, on a connection of the pool."""
        async with self.pool.connection() as conn:
            cur = await conn.execute(sql, args)
            found: list[tuple[Any, ...]] = await cur.fetchall()
            return found
