"""The inbox on SQLite (see :mod:`agent.inbox`): requests kept before they are acknowledged.

A row is ``pending`` from its receipt until its work is done (``done``), or given up
(``failed``). A claim is a compare-and-set on the row's lease, so of two processes claiming
one row only one takes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from agent.models.inbox import Inbound
from storage.database import Database
from storage.db import unsynced, write_transaction

_COLUMNS = "key, source, body, received_at, status, attempts"


def _inbound(row: tuple[Any, ...]) -> Inbound:
    key, source, body, received_at, status, attempts = row
    return Inbound(key=key, source=source, body=body, received_at=received_at, status=status, attempts=attempts)


def receive(db: Database, item: Inbound, lease_until: float) -> bool:
    """Keep ``item`` (pending until ``lease_until``); False when its key was kept before."""
    return receive_many(db, [(item, lease_until)])[0]


def receive_many(db: Database, items: Sequence[tuple[Inbound, float]]) -> list[bool]:
    """:func:`receive` for each item, in one transaction (see :mod:`storage.grouped`)."""
    with write_transaction(db):
        return [_receive(db, item, lease_until) for item, lease_until in items]


def _receive(db: Database, item: Inbound, lease_until: float) -> bool:
    cur = db.execute(
        "INSERT INTO inbox (key, source, body, status, received_at, lease_until, settled_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING",
        [
            item.key,
            item.source,
            item.body,
            item.status,
            item.received_at,
            lease_until,
            None if item.status == "pending" else item.received_at,
        ],
    )
    return cur.rowcount == 1


def claim(db: Database, sources: tuple[str, ...], now: float, lease_until: float, limit: int) -> list[Inbound]:
    marks = ", ".join("?" for _ in sources)
    rows = db.execute(
        f"SELECT {_COLUMNS}, lease_until FROM inbox WHERE status = 'pending' AND source IN ({marks})"
        " AND lease_until <= ? ORDER BY received_at LIMIT ?",
        [*sources, now, limit],
    ).fetchall()
    claimed = []
    for row in rows:
        cur = db.execute(
            "UPDATE inbox SET lease_until = ?, attempts = attempts + 1"
            " WHERE key = ? AND status = 'pending' AND lease_until = ?",
            [lease_until, row[0], row[-1]],
        )
        if cur.rowcount == 1:
            item = _inbound(row[:-1])
            claimed.append(item.model_copy(update={"attempts": item.attempts + 1}))
    return claimed


def renew(db: Database, key: str, lease_until: float) -> None:
    db.execute("UPDATE inbox SET lease_until = ? WHERE key = ? AND status = 'pending'", [lease_until, key])


def settle(db: Database, key: str, status: Literal["done", "failed"], at: float) -> None:
    """Without waiting for the disk: lost to a power cut, the row is pending again and its work, done by then,
    is replayed and changes nothing (as after a crash before this write)."""
    with unsynced(db):
        db.execute(
            "UPDATE inbox SET status = ?, settled_at = ? WHERE key = ? AND status = 'pending'", [status, at, key]
        )
