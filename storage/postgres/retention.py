"""Retention on PostgreSQL: what ``tandem prune`` deletes, in short transactions (as :mod:`storage.retention`)."""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection

from agent.models import TERMINAL, PruneCounts
from storage.postgres.base import Pool
from storage.retention import AGED, BATCH, RUN_CHILDREN

_FINISHED = "status = ANY(%(terminal)s) AND updated_at < %(before)s"


def _aged(where: str) -> str:
    """An :data:`storage.retention.AGED` condition, its ``?`` (the cutoff) as a named parameter."""
    return where.replace("?", "%(before)s")


async def prune(pool: Pool, before: float, *, dry_run: bool, batch: int = BATCH) -> PruneCounts:
    """Delete runs that finished before ``before`` whole (run first, so a run is locked before its
    rows, as commits do), ``batch`` per transaction; then aged rows. Unfinished runs are kept."""
    args: dict[str, Any] = {"before": before, "terminal": sorted(TERMINAL), "batch": batch}
    async with pool.connection() as conn:
        if dry_run:
            return PruneCounts(before=before, dry_run=True, rows=await _prunable(conn, args))
        rows = dict.fromkeys(("runs", *RUN_CHILDREN, *(table for table, _ in AGED)), 0)
        while True:
            async with conn.transaction():
                cur = await conn.execute(
                    "DELETE FROM runs WHERE id IN (SELECT id FROM runs WHERE"
                    f" {_FINISHED} LIMIT %(batch)s FOR UPDATE SKIP LOCKED) RETURNING id",
                    args,
                )
                ids = [r[0] for r in await cur.fetchall()]
                rows["runs"] += len(ids)
                for table in RUN_CHILDREN:
                    cur = await conn.execute(f"DELETE FROM {table} WHERE run_id = ANY(%s)", [ids])
                    rows[table] += cur.rowcount
            if len(ids) < batch:
                break
        for table, where in AGED:
            while True:
                cur = await conn.execute(
                    f"DELETE FROM {table} WHERE ctid IN (SELECT ctid FROM {table} WHERE {_aged(where)}"
                    " LIMIT %(batch)s)",
                    args,
                )
                rows[table] += cur.rowcount
                if cur.rowcount < batch:
                    break
    return PruneCounts(before=before, dry_run=False, rows=rows)


async def _prunable(conn: AsyncConnection[Any], args: dict[str, Any]) -> dict[str, int]:
    async def count(sql: str) -> int:
        cur = await conn.execute(sql, args)
        row = await cur.fetchone()
        return 0 if row is None else int(row[0])

    async with conn.transaction():
        await conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")  # one snapshot for every count
        rows = {"runs": await count(f"SELECT count(*) FROM runs WHERE {_FINISHED}")}
        for table in RUN_CHILDREN:
            rows[table] = await count(
                f"SELECT count(*) FROM {table} WHERE run_id IN (SELECT id FROM runs WHERE {_FINISHED})"
            )
        for table, where in AGED:
            rows[table] = await count(f"SELECT count(*) FROM {table} WHERE {_aged(where)}")
    return rows
