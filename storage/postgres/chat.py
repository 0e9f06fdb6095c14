"""What a chat channel keeps on PostgreSQL: messages it posted, and keys of events it already handled."""

from __future__ import annotations

import json
from typing import Any

from agent.models import PostedMessage
from storage.postgres.base import PoolUser


class Chat(PoolUser):
    """The chat side of :class:`storage.postgres.PgStore`."""

    async def claim_delivery(self, key: str, at: float) -> bool:
        """True the first time ``key`` is seen, whichever replica sees it (the key is the row's primary key)."""
        async with self.pool.connection() as conn:
            cur = await conn.execute(
                "INSERT INTO deliveries (key, at) VALUES (%s, %s) ON CONFLICT (key) DO NOTHING", [key, at]
            )
            return cur.rowcount == 1

    async def save_message(
        self, key: str, run_id: str, channel: str, ts: str, blocks: list[dict[str, Any]] | None = None
    ) -> None:
        async with self.pool.connection() as conn:
            await conn.execute(
                "INSERT INTO chat_messages (key, run_id, channel, ts, blocks) VALUES (%s, %s, %s, %s, %s)"
                " ON CONFLICT (key) DO UPDATE SET run_id = excluded.run_id, channel = excluded.channel,"
                " ts = excluded.ts, blocks = excluded.blocks",
                [key, run_id, channel, ts, json.dumps(blocks) if blocks is not None else None],
            )

    async def message(self, key: str) -> PostedMessage | None:
        row = await self.fetch_one("SELECT channel, ts, blocks FROM chat_messages WHERE key = %s", [key])
        if row is None:
            return None
        return PostedMessage(channel=str(row[0]), ts=str(row[1]), blocks=json.loads(row[2]) if row[2] else [])
