"""The inbox on PostgreSQL (see :mod:`agent.inbox`): the same rows as on SQLite. A claim is one statement
that locks its rows with ``FOR UPDATE SKIP LOCKED``: of replicas claiming together, each row goes to one."""

from __future__ import annotations

from typing import Literal

from agent.models.inbox import Inbound
from storage.postgres.base import PoolUser


class Inbox(PoolUser):
    """The inbox side of :class:`storage.postgres.PgStore`."""

    async def receive_inbound(self, item: Inbound, lease_until: float) -> bool:
        settled = None if item.status == "pending" else item.received_at
        async with self.pool.connection() as conn:
            cur = await conn.execute(
                "INSERT INTO inbox (key, source, body, status, received_at, lease_until, settled_at)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (key) DO NOTHING",
                [item.key, item.source, item.body, item.status, item.received_at, lease_until, settled],
            )
            return cur.rowcount == 1

    async def claim_inbound(
        self, sources: tuple[str, ...], now: float, lease_until: float, limit: int = 20
    ) -> list[Inbound]:
        rows = await self.fetch_all(
            "UPDATE inbox SET lease_until = %s, attempts = attempts + 1 WHERE key IN"
            " (SELECT key FROM inbox WHERE status = 'pending' AND source = ANY(%s) AND lease_until <= %s"
            "  ORDER BY received_at LIMIT %s FOR UPDATE SKIP LOCKED)"
            " RETURNING key, source, body, received_at, status, attempts",
            [lease_until, list(sources), now, limit],
        )
        claimed = [Inbound(key=k, source=s, body=b, received_at=r, status=st, attempts=a) for k, s, b, r, st, a in rows]
        return sorted(claimed, key=lambda item: item.received_at)

    async def renew_inbound(self, key: str, lease_until: float) -> None:
        async with self.pool.connection() as conn:
            await conn.execute(
                "UPDATE inbox SET lease_until = %s WHERE key = %s AND status = 'pending'", [lease_until, key]
            )

    async def settle_inbound(self, key: str, status: Literal["done", "failed"], at: float) -> None:
        async with self.pool.connection() as conn:
            await conn.execute(
                "UPDATE inbox SET status = %s, settled_at = %s WHERE key = %s AND status = 'pending'",
                [status, at, key],
            )
