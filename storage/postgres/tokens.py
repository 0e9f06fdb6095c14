"""API tokens on PostgreSQL: the same rows as on SQLite (see :mod:`storage.tokens`)."""

from __future__ import annotations

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
        async with self.pool.connection() as conn:
            await conn.execute(
                f"INSERT INTO asked ({ASKED}) VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING", values
            )
        if record.idempotency_key is None:
            return record
        row = await self.fetch_one(
            f"SELECT {ASKED} FROM asked WHERE token = %s AND idempotency_key = %s",
            [record.token, record.idempotency_key],
        )
        assert row is not None
        return asked_row(row)

    async def asked(self, run_id: str) -> AskedRecord | None:
        row = await self.fetch_one(f"SELECT {ASKED} FROM asked WHERE run_id = %s", [run_id])
        return None if row is None else asked_row(row)

    async def keep_task(self, record: TaskRecord) -> TaskRecord:
        async with self.pool.connection() as conn:
            await conn.execute(
                f"INSERT INTO a2a_tasks ({TASKS}) VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                task_values(record),
            )
        found = await self.task_by_message(record.token, record.message_id)
        assert found is not None
        return found

    async def task_by_id(self, run_id: str) -> TaskRecord | None:
        row = await self.fetch_one(f"SELECT {TASKS} FROM a2a_tasks WHERE run_id = %s", [run_id])
        return None if row is None else task_row(row)

    async def task_by_message(self, token: str, message_id: str) -> TaskRecord | None:
        row = await self.fetch_one(
            f"SELECT {TASKS} FROM a2a_tasks WHERE token = %s AND message_id = %s", [token, message_id]
        )
        return None if row is None else task_row(row)
