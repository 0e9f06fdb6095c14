"""The outbox on PostgreSQL: messages written with the transition that caused them, then delivered.

The same life as on SQLite (``held`` until the run's next durable commit, ``pending`` →
``sending`` → ``sent``, back to ``pending`` with a later ``next_at``, or ``failed``). A claim
is one statement that locks the row with ``FOR UPDATE SKIP LOCKED``: of replicas claiming one row together, one takes it
and the others are told at once that they did not, without waiting on each other.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from psycopg import AsyncConnection
from psycopg.errors import UniqueViolation

from agent.models import CardRefresh, Claim, Delivery, Outgoing, channel_of, decode_outgoing, encode_outgoing
from storage.postgres import rows
from storage.postgres.base import PoolUser

_COLUMNS = ", ".join(rows.DELIVERY_COLUMNS)
UNSHOWN = (
    "SELECT run_id, COALESCE(error, '') FROM outbox AS started WHERE kind = 'started' AND status = 'failed'"
    " AND NOT EXISTS (SELECT 1 FROM outbox AS told WHERE told.run_id = started.run_id AND told.kind = 'not_started')"
    " ORDER BY run_id"
)
"""Runs whose card (the ``started`` row) was given up on, and whose requester has no ``not_started`` row yet."""


async def insert(
    conn: AsyncConnection[Any],
    run_id: str,
    channel: str,
    messages: Iterable[Outgoing],
    at: float,
    *,
    held: bool = False,
) -> None:
    """Write outgoing messages (inside the caller's transaction), due at once (or ``held``: see
    :mod:`storage.outbox`); a card update joins one already waiting (the partial unique index ``outbox_card``)."""
    status = "held" if held else "pending"
    for message in messages:
        conflict = " ON CONFLICT DO NOTHING" if message.kind == "card" and not held else ""
        await conn.execute(
            "INSERT INTO outbox (run_id, channel, kind, message, status, created_at, next_at)"
            f" VALUES (%s, %s, %s, %s, %s, %s, 0){conflict}",
            [run_id, channel_of(message, channel), message.kind, encode_outgoing(message), status, at],
        )


async def release(conn: AsyncConnection[Any], run_id: str, *, card_follows: bool = False) -> None:
    """Make a run's held messages pending (inside the caller's durable transaction). With
    ``card_follows`` held card updates stay for :func:`redraw` (after the caller's own messages);
    without, one is dropped when a card update is already waiting."""
    if not card_follows:
        await conn.execute(
            "DELETE FROM outbox WHERE run_id = %s AND status = 'held' AND kind = 'card' AND EXISTS"
            " (SELECT 1 FROM outbox AS waiting WHERE waiting.run_id = %s AND waiting.kind = 'card'"
            " AND waiting.status = 'pending')",
            [run_id, run_id],
        )
    only = " AND kind <> 'card'" if card_follows else ""
    await conn.execute(f"UPDATE outbox SET status = 'pending' WHERE run_id = %s AND status = 'held'{only}", [run_id])


async def redraw(conn: AsyncConnection[Any], run_id: str, channel: str, at: float) -> None:
    """After a durable commit's own messages: one card update, drawn last, for the held ones."""
    await conn.execute(
        "INSERT INTO outbox (run_id, channel, kind, message, created_at, next_at) SELECT %s, %s, 'card', %s, %s, 0"
        " WHERE EXISTS (SELECT 1 FROM outbox WHERE run_id = %s AND status = 'held' AND kind = 'card')"
        " ON CONFLICT DO NOTHING",
        [run_id, channel, encode_outgoing(CardRefresh()), at, run_id],
    )
    await conn.execute("DELETE FROM outbox WHERE run_id = %s AND status = 'held' AND kind = 'card'", [run_id])


class Outbox(PoolUser):
    """The outbox side of :class:`storage.postgres.PgStore`."""

    async def add_outgoing(self, run_id: str, channel: str, messages: Sequence[Outgoing], at: float) -> None:
        async with self.pool.connection() as conn, conn.transaction():
            await insert(conn, run_id, channel, messages, at)

    async def release_outgoing(self, run_id: str) -> None:
        async with self.pool.connection() as conn, conn.transaction():
            await release(conn, run_id)

    async def due_deliveries(self, channel: str, now: float, lease: float, limit: int = 100) -> list[Delivery]:
        async with self.pool.connection() as conn:
            cur = await conn.execute(
                f"SELECT {_COLUMNS} FROM outbox WHERE channel = %s AND next_at <= %s"
                " AND status IN ('pending', 'sending')"  # the outbox_due index's condition, as in SQLite's
                " AND (status = 'pending' OR started_at <= %s) ORDER BY id LIMIT %s",
                [channel, now, now - lease, limit],
            )
            return [rows.delivery(r) for r in await cur.fetchall()]

    async def claim_delivery_row(self, delivery_id: int, now: float, lease: float) -> Claim:
        """Claim a row for one worker; ``uncertain`` when an earlier claim died mid-send."""
        async with self.pool.connection() as conn:
            cur = await conn.execute(
                "WITH free AS (SELECT id, status FROM outbox WHERE id = %(id)s"
                " AND (status = 'pending' OR (status = 'sending' AND started_at <= %(stale)s))"
                " FOR UPDATE SKIP LOCKED)"
                " UPDATE outbox SET status = 'sending', started_at = %(now)s FROM free WHERE outbox.id = free.id"
                " RETURNING free.status",
                {"id": delivery_id, "stale": now - lease, "now": now},
            )
            row = await cur.fetchone()
        return Claim(claimed=False) if row is None else Claim(claimed=True, uncertain=row[0] == "sending")

    async def renew_delivery_row(self, delivery_id: int, held_since: float, now: float) -> bool:
        """Move a live claim's stamp on (see :meth:`agent.ports.OutboxStore.renew_delivery_row`)."""
        return (
            await self._write(
                "UPDATE outbox SET started_at = %s WHERE id = %s AND status = 'sending' AND started_at = %s",
                [now, delivery_id, held_since],
            )
            == 1
        )

    async def delivered(self, delivery_id: int, at: float) -> None:
        await self._write(
            "UPDATE outbox SET status = 'sent', sent_at = %s, error = NULL WHERE id = %s AND status = 'sending'",
            [at, delivery_id],
        )

    async def retry_delivery(self, delivery_id: int, attempts: int, next_at: float, error: str) -> None:
        """Back to pending for a later try (a card update already superseded by a newer one is dropped)."""
        try:
            await self._write(
                "UPDATE outbox SET attempts = %s, next_at = %s, error = %s, status = CASE WHEN kind = 'card' AND EXISTS"
                " (SELECT 1 FROM outbox AS newer WHERE newer.run_id = outbox.run_id AND newer.kind = 'card'"
                " AND newer.status = 'pending') THEN 'sent' ELSE 'pending' END WHERE id = %s",
                [attempts, next_at, error, delivery_id],
            )
        except UniqueViolation:  # a newer card update was committed between the check and the write: superseded
            await self._write(
                "UPDATE outbox SET attempts = %s, next_at = %s, error = %s, status = 'sent' WHERE id = %s",
                [attempts, next_at, error, delivery_id],
            )

    async def fail_delivery(self, delivery_id: int, attempts: int, error: str) -> None:
        await self._write(
            "UPDATE outbox SET status = 'failed', attempts = %s, error = %s WHERE id = %s",
            [attempts, error, delivery_id],
        )

    async def busy_deliveries(self, channel: str, now: float) -> int:
        async with self.pool.connection() as conn:
            cur = await conn.execute(
                "SELECT count(*) FROM outbox WHERE channel = %s AND status IN ('pending', 'sending')"
                " AND status = 'pending' AND next_at <= %s",
                [channel, now],
            )
            row = await cur.fetchone()
            return 0 if row is None else int(row[0])

    async def undelivered(self, run_id: str) -> list[Delivery]:
        async with self.pool.connection() as conn:
            cur = await conn.execute(
                f"SELECT {_COLUMNS} FROM outbox WHERE run_id = %s AND (status = 'failed' OR"
                " (status IN ('pending', 'sending') AND attempts > 0)) ORDER BY id",
                [run_id],
            )
            return [rows.delivery(r) for r in await cur.fetchall()]

    async def undelivered_runs(self, run_ids: Sequence[str]) -> dict[str, int]:
        if not run_ids:
            return {}
        async with self.pool.connection() as conn:
            cur = await conn.execute(
                "SELECT run_id, count(*) FROM outbox WHERE run_id = ANY(%s) AND status = 'failed' GROUP BY run_id",
                [list(run_ids)],
            )
            return {str(r[0]): int(r[1]) for r in await cur.fetchall()}

    async def redeliver(self, run_id: str, now: float) -> int:
        return await self._write(
            "UPDATE outbox SET status = 'pending', attempts = 0, next_at = %s WHERE run_id = %s AND status = 'failed'",
            [now, run_id],
        )

    async def unshown_runs(self) -> list[tuple[str, str]]:
        async with self.pool.connection() as conn:
            cur = await conn.execute(UNSHOWN)
            return [(str(r[0]), str(r[1])) for r in await cur.fetchall()]

    async def delivery_status(self, run_id: str, kind: str, review_id: str | None) -> str | None:
        async with self.pool.connection() as conn:
            cur = await conn.execute(
                "SELECT status, message FROM outbox WHERE run_id = %s AND kind = %s ORDER BY id DESC", [run_id, kind]
            )
            for status, message in await cur.fetchall():
                if decode_outgoing(message).review_id == review_id:
                    return str(status)
        return None

    async def _write(self, sql: str, args: Sequence[Any]) -> int:
        async with self.pool.connection() as conn:
            cur = await conn.execute(sql, args)
            return cur.rowcount
