"""Report posts on PostgreSQL: scheduled like review deadlines, claimed once however many replicas tick.

A claim locks the post's row with ``FOR UPDATE SKIP LOCKED`` and, in the same transaction,
marks it posted and writes its outbox row: of replicas claiming one post together, one
takes it and the others are told at once that they did not.
"""

from __future__ import annotations

from agent.models import Outbound, ScheduledPost
from agent.weekly import post_run_id
from storage.postgres import outbox as outbox_rows
from storage.postgres.base import PoolUser


class Posts(PoolUser):
    """The report-post side of :class:`storage.postgres.PgStore`."""

    async def schedule_post(self, post: ScheduledPost, now: float) -> None:
        async with self.pool.connection() as conn, conn.transaction():
            if not post.manual:
                await conn.execute(
                    "UPDATE report_posts SET status = 'superseded' WHERE status = 'scheduled' AND NOT manual"
                    " AND until > %s AND key <> %s",
                    [now, post.key],
                )
            await conn.execute(  # a post the policy moved away from and back to is scheduled again
                "INSERT INTO report_posts (key, channel, since, until, manual, created_at)"
                " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (key) DO UPDATE SET status = 'scheduled'"
                " WHERE report_posts.status = 'superseded'",
                [post.key, post.channel, post.since, post.until, post.manual, now],
            )

    async def due_posts(self, now: float) -> list[ScheduledPost]:
        found = await self.fetch_all(
            "SELECT key, channel, since, until, manual FROM report_posts"
            " WHERE status = 'scheduled' AND until <= %s ORDER BY until, key",
            [now],
        )
        return [ScheduledPost(key=r[0], channel=r[1], since=r[2], until=r[3], manual=r[4]) for r in found]

    async def claim_post(self, key: str, outbox: Outbound, at: float) -> bool:
        async with self.pool.connection() as conn, conn.transaction():
            cur = await conn.execute(
                "WITH free AS (SELECT key FROM report_posts WHERE key = %(key)s AND status = 'scheduled'"
                " FOR UPDATE SKIP LOCKED)"
                " UPDATE report_posts SET status = 'posted', posted_at = %(at)s FROM free"
                " WHERE report_posts.key = free.key RETURNING report_posts.key",
                {"key": key, "at": at},
            )
            if await cur.fetchone() is None:
                return False
            await outbox_rows.insert(conn, post_run_id(key), outbox.channel, outbox.messages, at)
            return True
