"""The outbox on SQLite: messages written with the transition that caused them, then delivered.

A transition committed without waiting for the disk writes its messages ``held``: nobody may be
told of it before it is on disk, yet a crash must not lose them. The run's next durable commit
(or :func:`release` in a durable write of its own) makes them ``pending``; held card updates
give way to one drawn last, as the run is then.

A row is ``pending`` until a delivery worker claims it (``sending``), then ``sent``, or
back to ``pending`` with a later ``next_at`` when the channel failed, or ``failed`` once
it kept failing. The worker renews its claim while the send is under way (its
``started_at`` moves on); a ``sending`` row whose worker died is claimed again once its
lease ran out unrenewed, and the claim says its earlier attempt's outcome is unknown (``uncertain``), so the
channel can look before it sends twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from agent.models import CardRefresh, Claim, Delivery, Outgoing, channel_of, decode_outgoing, encode_outgoing
from storage.database import Database
from storage.db import unsynced

UNSHOWN = (
    "SELECT run_id, COALESCE(error, '') FROM outbox AS started WHERE kind = 'started' AND status = 'failed'"
    " AND NOT EXISTS (SELECT 1 FROM outbox AS told WHERE told.run_id = started.run_id AND told.kind = 'not_started')"
    " ORDER BY run_id"
)
"""Runs whose card (the ``started`` row) was given up on, and whose requester has no ``not_started`` row yet."""
_COLUMNS = "id, run_id, channel, message, status, attempts, created_at, next_at, sent_at, error"


def _delivery(row: Sequence[Any]) -> Delivery:
    keys = ("id", "run_id", "channel", "message", "status", "attempts", "created_at", "next_at", "sent_at", "error")
    data = dict(zip(keys, row, strict=True))
    data["message"] = decode_outgoing(data["message"])
    if data["status"] == "sending":
        data["status"] = "pending"
    return Delivery.model_validate(data)


def insert(
    db: Database, run_id: str, channel: str, messages: Iterable[Outgoing], at: float, *, held: bool = False
) -> None:
    """Write outgoing messages (inside the caller's transaction), due at once (or ``held``); a card update
    joins one already waiting. ``at`` is the transition's time (which a test's clock may have moved)."""
    status = "held" if held else "pending"
    for message in messages:
        verb = "INSERT OR IGNORE" if message.kind == "card" and not held else "INSERT"
        db.execute(
            f"{verb} INTO outbox (run_id, channel, kind, message, status, created_at, next_at)"
            " VALUES (?, ?, ?, ?, ?, ?, 0)",
            [run_id, channel_of(message, channel), message.kind, encode_outgoing(message), status, at],
        )


def release(db: Database, run_id: str, *, card_follows: bool = False) -> None:
    """Make a run's held messages pending (inside the caller's durable transaction). With
    ``card_follows`` held card updates stay for :func:`redraw` (after the caller's own messages);
    without, one is dropped when a card update is already waiting."""
    if not card_follows:
        db.execute(
            "DELETE FROM outbox WHERE run_id = ? AND status = 'held' AND kind = 'card' AND EXISTS"
            " (SELECT 1 FROM outbox AS waiting WHERE waiting.run_id = ? AND waiting.kind = 'card'"
            " AND waiting.status = 'pending')",
            [run_id, run_id],
        )
    only = " AND kind <> 'card'" if card_follows else ""
    db.execute(f"UPDATE outbox SET status = 'pending' WHERE run_id = ? AND status = 'held'{only}", [run_id])


def redraw(db: Database, run_id: str, channel: str, at: float) -> None:
    """After a durable commit's own messages: one card update, drawn last, for the held ones."""
    db.execute(
        "INSERT OR IGNORE INTO outbox (run_id, channel, kind, message, created_at, next_at)"
        " SELECT ?, ?, 'card', ?, ?, 0"
        " WHERE EXISTS (SELECT 1 FROM outbox WHERE run_id = ? AND status = 'held' AND kind = 'card')",
        [run_id, channel, encode_outgoing(CardRefresh()), at, run_id],
    )
    db.execute("DELETE FROM outbox WHERE run_id = ? AND status = 'held' AND kind = 'card'", [run_id])


class OutboxStore:
    """Synchronous outbox repository; async code reaches it through :class:`storage.facade.AsyncStore`."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def add(self, run_id: str, channel: str, messages: Sequence[Outgoing], at: float) -> None:
        with self.db.atomic():
            insert(self.db, run_id, channel, messages, at)

    def release(self, run_id: str) -> None:
        with self.db.atomic():
            release(self.db, run_id)

    def due(self, channel: str, now: float, lease: float, limit: int = 100) -> list[Delivery]:
        """Rows to deliver now, oldest first: pending ones that are due, and claims whose worker died.

        The ``status IN`` term is the ``outbox_due`` index's own condition, said as it is: SQLite uses a
        partial index only for a query that repeats it, and without it every poll read every row ever sent."""
        rows = self.db.execute(
            f"SELECT {_COLUMNS} FROM outbox WHERE channel = ? AND next_at <= ? AND status IN ('pending', 'sending')"
            " AND (status = 'pending' OR started_at <= ?) ORDER BY id LIMIT ?",
            [channel, now, now - lease, limit],
        ).fetchall()
        return [_delivery(r) for r in rows]

    def claim(self, delivery_id: int, now: float, lease: float) -> Claim:
        """Claim a row for one worker; ``uncertain`` when an earlier claim died mid-send.

        Compare-and-set in one statement (no read-then-write transaction, which SQLite refuses at once
        when another connection writes): the claim holds only if the row is still as it was read.
        """
        row = self.db.execute("SELECT status, started_at FROM outbox WHERE id = ?", [delivery_id]).fetchone()
        if row is None:
            return Claim(claimed=False)
        status, started = row
        stale = status == "sending" and started is not None and started <= now - lease
        if status != "pending" and not stale:
            return Claim(claimed=False)
        cur = self.db.execute(
            "UPDATE outbox SET status = 'sending', started_at = ? WHERE id = ? AND status = ? AND started_at IS ?",
            [now, delivery_id, status, started],
        )
        return Claim(claimed=cur.rowcount == 1, uncertain=stale)

    def renew(self, delivery_id: int, held_since: float, now: float) -> bool:
        """Move a live claim's stamp on (see :meth:`agent.ports.OutboxStore.renew_delivery_row`)."""
        cur = self.db.execute(
            "UPDATE outbox SET started_at = ? WHERE id = ? AND status = 'sending' AND started_at = ?",
            [now, delivery_id, held_since],
        )
        return cur.rowcount == 1

    def sent(self, delivery_id: int, at: float) -> None:
        """Mark a claimed row sent, without waiting for the disk: lost to a power cut, the row is a claim whose
        worker died mid-send, sent again as such (``uncertain``), exactly as after a crash before this write."""
        with unsynced(self.db):
            self.db.execute(
                "UPDATE outbox SET status = 'sent', sent_at = ?, error = NULL WHERE id = ? AND status = 'sending'",
                [at, delivery_id],
            )

    def retry(self, delivery_id: int, attempts: int, next_at: float, error: str) -> None:
        """Back to pending for a later try (a card update already superseded by a newer one is dropped)."""
        self.db.execute(
            "UPDATE outbox SET attempts = ?, next_at = ?, error = ?, status = CASE WHEN kind = 'card' AND EXISTS"
            " (SELECT 1 FROM outbox AS newer WHERE newer.run_id = outbox.run_id AND newer.kind = 'card'"
            " AND newer.status = 'pending') THEN 'sent' ELSE 'pending' END WHERE id = ?",
            [attempts, next_at, error, delivery_id],
        )

    def fail(self, delivery_id: int, attempts: int, error: str) -> None:
        self.db.execute(
            "UPDATE outbox SET status = 'failed', attempts = ?, error = ? WHERE id = ?", [attempts, error, delivery_id]
        )

    def busy(self, channel: str, now: float) -> int:
        """How many rows wait to be sent and are due now."""
        row = self.db.execute(  # status IN: the outbox_due index's condition (see due)
            "SELECT COUNT(*) FROM outbox WHERE channel = ? AND status IN ('pending', 'sending')"
            " AND status = 'pending' AND next_at <= ?",
            [channel, now],
        ).fetchone()
        return int(row[0])

    def undelivered(self, run_id: str) -> list[Delivery]:
        """Messages of a run that could not be delivered (given up, or still failing)."""
        rows = self.db.execute(
            f"SELECT {_COLUMNS} FROM outbox WHERE run_id = ? AND (status = 'failed' OR"
            " (status IN ('pending', 'sending') AND attempts > 0)) ORDER BY id",
            [run_id],
        ).fetchall()
        return [_delivery(r) for r in rows]

    def undelivered_runs(self, run_ids: Sequence[str]) -> dict[str, int]:
        """How many messages each of ``run_ids`` could not deliver (runs with none are left out)."""
        if not run_ids:
            return {}
        marks = ", ".join("?" for _ in run_ids)
        rows = self.db.execute(
            f"SELECT run_id, COUNT(*) FROM outbox WHERE run_id IN ({marks}) AND status = 'failed' GROUP BY run_id",
            list(run_ids),
        ).fetchall()
        return {str(r[0]): int(r[1]) for r in rows}

    def redeliver(self, run_id: str, now: float) -> int:
        """Give a run's failed messages a fresh start; returns how many."""
        cur = self.db.execute(
            "UPDATE outbox SET status = 'pending', attempts = 0, next_at = ? WHERE run_id = ? AND status = 'failed'",
            [now, run_id],
        )
        return int(cur.rowcount)

    def unshown(self) -> list[tuple[str, str]]:
        """Runs whose card was given up on and whose requester was not told yet (see :data:`UNSHOWN`)."""
        return [(str(r[0]), str(r[1])) for r in self.db.execute(UNSHOWN).fetchall()]

    def status_of(self, run_id: str, kind: str, review_id: str | None) -> str | None:
        """The delivery status of a run's message of ``kind`` about ``review_id`` (the latest one)."""
        rows = self.db.execute(
            "SELECT status, message FROM outbox WHERE run_id = ? AND kind = ? ORDER BY id DESC", [run_id, kind]
        ).fetchall()
        for status, message in rows:
            if decode_outgoing(message).review_id == review_id:
                return str(status)
        return None
