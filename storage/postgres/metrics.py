"""Collaboration metrics on PostgreSQL: the same SQL as SQLite's (``storage/metrics.py``), through a dialect.

JSON payloads are stored as text, so a field is read with ``::jsonb #>>``; temporary tables and their
indexes live in the session's own schema. Everything runs in one transaction on one pooled connection,
and the temporary tables are dropped before the connection goes back to the pool.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from psycopg_pool import AsyncConnectionPool

from agent.models.metrics import Metrics, MetricsQuery
from storage.metrics import STAGED, assemble, queries, stage


@dataclass(frozen=True)
class PgDialect:
    def field(self, column: str, path: str) -> str:
        return f"(({column})::jsonb #>> '{{{path.replace('.', ',')}}}')"

    def temp_index(self, name: str, table: str, columns: str) -> str:
        return f"CREATE INDEX {name} ON {table}({columns})"

    def drop_temp(self, table: str) -> str:
        return f"DROP TABLE IF EXISTS pg_temp.{table}"


POSTGRES = PgDialect()


def _pg(sql: str) -> str:
    """``?`` placeholders as psycopg's ``%s`` (the shared SQL has no other ``%`` or ``?``)."""
    return sql.replace("?", "%s")


async def collect(pool: AsyncConnectionPool[Any], q: MetricsQuery) -> Metrics:
    results: dict[str, list[tuple[Any, ...]]] = {}
    async with pool.connection() as conn:
        try:
            async with conn.transaction():
                for sql, args in stage(q, POSTGRES):
                    await conn.execute(_pg(sql), args)
                for name, (sql, args) in queries(q, POSTGRES).items():
                    cursor = await conn.execute(_pg(sql), args)
                    results[name] = [tuple(r) for r in await cursor.fetchall()]
        finally:
            for table in STAGED:
                await conn.execute(POSTGRES.drop_temp(table))
    return assemble(q, results)
