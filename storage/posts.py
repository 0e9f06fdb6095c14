"""Report posts on SQLite: scheduled like review deadlines, claimed once however many processes tick.

A post is ``scheduled`` until a tick claims it: one ``BEGIN IMMEDIATE`` transaction turns it
``posted`` only if it is still ``scheduled`` and writes its outbox row, so of two processes
claiming one post together exactly one writes the message, and a crash leaves either both
(the delivery worker sends it) or neither (the next tick claims it). A post scheduled for the
future under another key is ``superseded`` when the policy moves the post (and scheduled again
when it moves back).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent.models import Outbound, ScheduledPost
from agent.weekly import post_run_id
from storage import outbox as outbox_rows
from storage.database import Database
from storage.db import write_transaction

_COLUMNS = "key, channel, since, until, manual"


def _post(row: Sequence[Any]) -> ScheduledPost:
    key, channel, since, until, manual = row
    return ScheduledPost(key=key, channel=channel, since=since, until=until, manual=bool(manual))


class PostStore:
    """Synchronous report-post repository; async code reaches it through :class:`storage.facade.AsyncStore`."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def schedule(self, post: ScheduledPost, now: float) -> None:
        with write_transaction(self.db):
            if not post.manual:
                self.db.execute(
                    "UPDATE report_posts SET status = 'superseded' WHERE status = 'scheduled' AND manual = 0"
                    " AND until > ? AND key != ?",
                    [now, post.key],
                )
            self.db.execute(  # a post the policy moved away from and back to is scheduled again
                "INSERT INTO report_posts (key, channel, since, until, manual, created_at) VALUES (?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (key) DO UPDATE SET status = 'scheduled' WHERE report_posts.status = 'superseded'",
                [post.key, post.channel, post.since, post.until, int(post.manual), now],
            )

    def due(self, now: float) -> list[ScheduledPost]:
        rows = self.db.execute(
            f"SELECT {_COLUMNS} FROM report_posts WHERE status = 'scheduled' AND until <= ? ORDER BY until, key",
            [now],
        ).fetchall()
        return [_post(r) for r in rows]

    def claim(self, key: str, outbox: Outbound, at: float) -> bool:
        with write_transaction(self.db):
            cur = self.db.execute(
                "UPDATE report_posts SET status = 'posted', posted_at = ? WHERE key = ? AND status = 'scheduled'",
                [at, key],
            )
            if cur.rowcount != 1:
                return False
            outbox_rows.insert(self.db, post_run_id(key), outbox.channel, outbox.messages, at)
            return True
