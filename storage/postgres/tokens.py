"""API tokens on PostgreSQL: the same rows as on SQLite (see :mod:`storage.tokens`)."""

from __future__ import annotations

from typing import Any

from psycopg.errors import UniqueViolation

from agent.models.tokens import ApiToken, AskedRecord, TaskRecord
from storage.postgres.base import PoolUser
from storage.tokens import ASKED, COLUMNS, TASKS, asked_row, task_row, task_values, token_row, token_values


class Tokens(PoolUser):
    """The API-token side of :class:`storage.postgres.PgStore`."""

    async def create_token(self, token: ApiToken) -> bool:
        try:
            async with self.pool.connection() as conn:
                await conn.execute(
                    f"INSERT INTO api_tokens ({COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, NULL, NULL)",
                    token_values(token),
                )
        except UniqueViolation:
            return False
        return True

    async def token_by_hash(self, token_hash: str) -> ApiToken | None:
        row = await self.fetch_one(f"SELECT {COLUMNS} FROM api_tokens WHERE token_hash = %s", [token_hash])
        return None if row is None else token_row(row)

    async def list_tokens(self) -> list[ApiToken]:
        return [
            token_row(r)
            for r in await self.fetch_all(f"SELECT {COLUMNS} FROM api_tokens ORDER BY created_at, name", [])
        ]

    async def revoke_token(self, name: str, by: str, at: float) -> bool:
        async with self.pool.connection() as conn:
            cur = await conn.execute(
                "UPDATE api_tokens SET revoked_by = %s, revoked_at = %s WHERE name = %s AND revoked_at IS NULL",
                [by, at, name],
            )
            return cur.rowcount == 1

    async def keep_asked(self, record: AskedRecord) -> AskedRecord:
        values = [record.id, record.token, record.idempotency_key, record.callback_url, record.created_at]
        if record.idempotency_key is None:
            await self._insert("asked", ASKED, values)
            return record
        where = "token = %s AND idempotency_key = %s"
        return asked_row(await self._keep("asked", ASKED, values, where, [record.token, record.idempotency_key]))

    async def _keep(self, table: str, columns: str, values: list[Any], where: str, args: list[Any]) -> tuple[Any, ...]:
        """Insert a caller's record unless one with its key is there; the one that is there after."""
        await self._insert(table, columns, values)
        row = await self.fetch_one(f"SELECT {columns} FROM {table} WHERE {where}", args)
        assert row is not None
        return tuple(row)

    async def _insert(self, table: str, columns: str, values: list[Any]) -> None:
        marks = ", ".join("%s" for _ in values)
        async with self.pool.connection() as conn:
            await conn.execute(f"INSERT INTO {table} ({columns}) VALUES ({marks}) ON CONFLICT DO NOTHING", values)

    async def asked(self, run_id: str) -> AskedRecord | None:
        row = await self.fetch_one(f"SELECT {ASKED} FROM asked WHERE run_id = %s", [run_id])
        return None if row is None else asked_row(row)

    async def keep_task(self, record: TaskRecord) -> TaskRecord:
        where = "token = %s AND message_id = %s"
        return task_row(
            await self._keep("a2a_tasks", TASKS, task_values(record), where, [record.token, record.message_id])
        )

    async def task_by_id(self, run_id: str) -> TaskRecord | None:
        row = await self.fetch_one(f"SELECT {TASKS} FROM a2a_tasks WHERE run_id = %s", [run_id])
        return None if row is None else task_row(row)

    async def task_by_message(self, token: str, message_id: str) -> TaskRecord | None:
        row = await self.fetch_one(
            f"SELECT {TASKS} FROM a2a_tasks WHERE token = %s AND message_id = %s", [token, message_id]
        )
        return None if row is None else task_row(row)
