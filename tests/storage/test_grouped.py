"""Inbox receipts made side by side on SQLite: one transaction for all, each caller answered only once it is on disk."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from agent.models.inbox import Inbound
from storage.facade import AsyncStore
from storage.grouped import Grouped

T0 = 1_700_000_000.0


def item(key: str) -> Inbound:
    return Inbound(key=key, source="slack", body='{"type": "block_actions"}', received_at=T0)


def stored_keys(path: Path) -> set[str]:
    """What another process reading the file sees."""
    with sqlite3.connect(path) as other:
        return {row[0] for row in other.execute("SELECT key FROM inbox")}


async def test_receipts_that_arrive_while_the_database_is_busy_share_one_commit_and_each_gets_its_answer(
    tmp_path: Path,
) -> None:
    path = tmp_path / "tandem.db"
    async with AsyncStore(path) as store:
        busy, go = threading.Event(), threading.Event()
        held = store.run(lambda db: (busy.set(), go.wait(10)))  # the database thread is busy with something else
        held_task = asyncio.ensure_future(held)
        assert await asyncio.to_thread(busy.wait, 10)
        keys = [f"slack:action:U{n}" for n in range(40)] + ["slack:action:U3"]  # the last is a duplicate
        calls = [asyncio.ensure_future(store.receive_inbound(item(key), T0 + 10)) for key in keys]
        await asyncio.sleep(0)  # every call is listed before the database thread is free again
        assert not any(call.done() for call in calls)
        before = store.receipts_committed
        go.set()
        answers = await asyncio.gather(*calls)
        await held_task
        assert answers == [True] * 40 + [False]
        assert store.receipts_committed - before == 1
        assert stored_keys(path) == {f"slack:action:U{n}" for n in range(40)}


async def test_a_failed_group_fails_every_call_in_it_and_writes_none_of_them() -> None:
    executor = ThreadPoolExecutor(max_workers=1)
    written: list[str] = []

    def write(keys: Sequence[str]) -> list[bool]:
        if "bad" in keys:
            raise sqlite3.OperationalError("database is locked")
        written.extend(keys)
        return [True for _ in keys]

    grouped: Grouped[str, bool] = Grouped(write, executor)
    gate = threading.Event()
    blocker = asyncio.wrap_future(executor.submit(gate.wait, 10))
    calls = [asyncio.ensure_future(grouped(key)) for key in ("a", "bad", "c")]
    await asyncio.sleep(0)
    gate.set()
    await blocker
    outcomes = await asyncio.gather(*calls, return_exceptions=True)
    assert all(isinstance(outcome, sqlite3.OperationalError) for outcome in outcomes)
    assert written == []
    assert await grouped("d") is True and written == ["d"]
    executor.shutdown()


async def test_a_cancelled_caller_leaves_the_others_of_its_group_answered() -> None:
    executor = ThreadPoolExecutor(max_workers=1)
    grouped: Grouped[str, str] = Grouped(lambda keys: [key.upper() for key in keys], executor)
    gate = threading.Event()
    blocker = asyncio.wrap_future(executor.submit(gate.wait, 10))
    first, second = asyncio.ensure_future(grouped("a")), asyncio.ensure_future(grouped("b"))
    await asyncio.sleep(0)
    first.cancel()
    gate.set()
    await blocker
    assert await second == "B"
    with pytest.raises(asyncio.CancelledError):
        await first
    executor.shutdown()
