"""Durable writes made side by side on SQLite (new runs, transitions, outbox claims): one transaction and one
sync for all of them, each in a savepoint, so one caller's refusal leaves the others written."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from agent.errors import ConcurrentUpdate, RunExists
from agent.models import NewsLine
from storage.db import connect
from storage.facade import AsyncStore
from storage.grouped import each_in_one
from tests.storage.kit import T0, event, run

INLINE = [False, True]


def on_disk(path: Path) -> dict[str, tuple[str, int]]:
    """Each run's phase and version, as another process reading the file sees them."""
    with sqlite3.connect(path) as other:
        rows = other.execute("SELECT id, json_extract(state, '$.phase'), version FROM runs").fetchall()
    return {run_id: (phase or "planning", version) for run_id, phase, version in rows}  # the default is left out


@pytest.mark.parametrize("inline", INLINE, ids=["database thread", "inline"])
async def test_runs_created_side_by_side_share_one_transaction_and_a_taken_id_fails_alone(
    tmp_path: Path, inline: bool
) -> None:
    path = tmp_path / "t.db"
    async with AsyncStore(path, inline=inline) as store:
        await store.create(run("r0"), [event("started")])
        before = store.durable_writes
        ids = ["r1", "r2", "r0", "r3"]  # r0 exists already
        outcomes = await asyncio.gather(
            *(store.create(run(run_id), [event("started")]) for run_id in ids), return_exceptions=True
        )
        assert outcomes[:2] == [1, 1] and outcomes[3] == 1
        assert isinstance(outcomes[2], RunExists)
        writes, transactions = (now - then for now, then in zip(store.durable_writes, before, strict=True))
        assert (writes, transactions) == (4, 1)
        assert on_disk(path) == {f"r{n}": ("planning", 1) for n in range(4)}
        assert [e.kind for e in await store.events("r2")] == ["started"]


@pytest.mark.parametrize("inline", INLINE, ids=["database thread", "inline"])
async def test_a_stale_transition_in_a_group_is_refused_alone_and_the_others_are_written(
    tmp_path: Path, inline: bool
) -> None:
    path = tmp_path / "t.db"
    async with AsyncStore(path, inline=inline) as store:
        for run_id in ("a", "b", "c"):
            await store.create(run(run_id), [event("started")])
        moves = [
            store.commit(run("a", phase="executing", updated_at=T0 + 1), 1, [event("moved", T0 + 1)]),
            store.commit(run("b", phase="executing", updated_at=T0 + 1), 7, [event("late", T0 + 1)]),  # stale
            store.commit(run("c", phase="done", updated_at=T0 + 1), 1, [event("done", T0 + 1)]),
        ]
        outcomes = await asyncio.gather(*moves, return_exceptions=True)
        assert outcomes[0] == 2 and outcomes[2] == 2
        assert isinstance(outcomes[1], ConcurrentUpdate) and "b" in str(outcomes[1])
        assert on_disk(path) == {"a": ("executing", 2), "b": ("planning", 1), "c": ("done", 2)}
        assert [e.kind for e in await store.events("b")] == ["started"], "the refused transition wrote nothing"


async def test_the_same_row_claimed_twice_in_one_group_goes_to_one_worker(tmp_path: Path) -> None:
    async with AsyncStore(tmp_path / "t.db", inline=True) as store:
        await store.create(run("r1"), [event("started")])
        await store.add_outgoing("r1", "slack", [NewsLine(text="hello")], T0)
        [row] = await store.due_deliveries("slack", T0 + 1, 60)
        claims = await asyncio.gather(*(store.claim_delivery_row(row.id, T0 + 1, 60) for _ in range(3)))
        assert [claim.claimed for claim in claims] == [True, False, False]


def test_an_error_that_ends_the_shared_transaction_sends_every_call_back_alone(tmp_path: Path) -> None:
    db = connect(tmp_path / "t.db")
    db.execute("CREATE TABLE seen (name TEXT PRIMARY KEY)")

    def insert(name: str) -> Any:
        return lambda: db.execute("INSERT INTO seen VALUES (?)", [name]).rowcount

    def ends_it() -> None:
        db.conn.execute("ROLLBACK")  # as SQLite does after some errors (a full disk, an I/O error)
        raise sqlite3.OperationalError("disk I/O error")

    outcomes = each_in_one(db, [insert("a"), ends_it, insert("c")])
    assert outcomes[0] == 1 and outcomes[2] == 1
    assert isinstance(outcomes[1], sqlite3.OperationalError)  # alone, it fails: no transaction to roll back
    assert {row[0] for row in db.execute("SELECT name FROM seen")} == {"a", "c"}, "a was rolled back and made again"
    assert not db.conn.in_transaction
    db.close()


def test_a_call_refused_in_a_group_keeps_none_of_its_own_writes(tmp_path: Path) -> None:
    db = connect(tmp_path / "t.db")
    db.execute("CREATE TABLE seen (name TEXT PRIMARY KEY)")

    def half_then_refuse() -> None:
        db.execute("INSERT INTO seen VALUES ('half')")
        raise ConcurrentUpdate("moved on")

    outcomes = each_in_one(db, [lambda: db.execute("INSERT INTO seen VALUES ('a')").rowcount, half_then_refuse])
    assert outcomes[0] == 1 and isinstance(outcomes[1], ConcurrentUpdate)
    assert {row[0] for row in db.execute("SELECT name FROM seen")} == {"a"}
    db.close()
