"""The inbox on both backends: a request kept once by its key, claimed after its lease by one claimant alone."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent.models.inbox import Inbound
from agent.ports import Store
from storage.facade import AsyncStore
from storage.postgres.store import PgStore
from tests.pgserver import PgServer

T0 = 1_700_000_000.0


def item(key: str, at: float = T0) -> Inbound:
    return Inbound(key=key, source="slack", body='{"type": "block_actions"}', received_at=at)


async def test_inbox_same_key_received_twice_is_kept_once(store: Store) -> None:
    assert await store.receive_inbound(item("slack:action:U1:1.1:tandem.approve"), T0 + 10)
    assert not await store.receive_inbound(item("slack:action:U1:1.1:tandem.approve", T0 + 1), T0 + 11)
    assert not await store.receive_inbound(
        item("slack:action:U1:1.1:tandem.approve").model_copy(update={"status": "done"}), T0 + 11
    )


async def test_inbox_row_is_claimed_once_its_lease_ran_out_by_one_claim_with_its_body(store: Store) -> None:
    await store.receive_inbound(item("k1"), T0 + 10)
    await store.receive_inbound(item("k2", T0 + 1), T0 + 11)
    assert await store.claim_inbound(("slack",), T0 + 5, T0 + 15) == []  # its process still holds it
    assert await store.claim_inbound(("feishu",), T0 + 20, T0 + 30) == []  # another platform's process

    claimed = await store.claim_inbound(("slack",), T0 + 10, T0 + 20)

    assert [(c.key, c.body, c.attempts) for c in claimed] == [("k1", '{"type": "block_actions"}', 1)]
    assert await store.claim_inbound(("slack",), T0 + 10, T0 + 20) == []  # held by the claim now
    later = await store.claim_inbound(("slack",), T0 + 20, T0 + 30)
    assert [(c.key, c.attempts) for c in later] == [("k1", 2), ("k2", 1)]


async def test_inbox_row_settled_or_renewed_is_not_claimed(store: Store) -> None:
    await store.receive_inbound(item("done"), T0 + 10)
    await store.receive_inbound(item("renewed"), T0 + 10)
    await store.receive_inbound(item("remembered").model_copy(update={"status": "done"}), T0 + 10)
    await store.settle_inbound("done", "done", T0 + 2)
    await store.renew_inbound("renewed", T0 + 40)

    assert await store.claim_inbound(("slack",), T0 + 30, T0 + 40) == []
    assert [c.key for c in await store.claim_inbound(("slack",), T0 + 40, T0 + 50)] == ["renewed"]


async def claim_all(store: Store, now: float) -> list[str]:
    taken: list[str] = []
    while claimed := await store.claim_inbound(("slack",), now, now + 60, limit=5):
        taken += [c.key for c in claimed]
        await asyncio.sleep(0)
    return taken


async def test_inbox_claimed_by_two_postgres_stores_at_once_goes_to_exactly_one_each(pg_server: PgServer) -> None:
    url = pg_server.schema()
    async with PgStore(url) as first, PgStore(url) as second:
        keys = [f"slack:event:{i}" for i in range(60)]
        for key in keys:
            await first.receive_inbound(item(key), T0 + 10)

        mine, theirs = await asyncio.gather(claim_all(first, T0 + 10), claim_all(second, T0 + 10))

    assert sorted(mine + theirs) == sorted(keys), "every row claimed, none twice"
    assert mine and theirs, "both replicas took a share"


async def test_inbox_claimed_by_two_sqlite_processes_at_once_goes_to_exactly_one_each(tmp_path: Path) -> None:
    async with AsyncStore(tmp_path / "t.db") as first, AsyncStore(tmp_path / "t.db") as second:
        keys = [f"slack:event:{i}" for i in range(60)]
        for key in keys:
            await first.receive_inbound(item(key), T0 + 10)

        mine, theirs = await asyncio.gather(claim_all(first, T0 + 10), claim_all(second, T0 + 10))

    assert sorted(mine + theirs) == sorted(keys), "every row claimed, none twice"


async def test_prune_deletes_inbox_rows_done_before_the_cutoff_and_keeps_pending_ones(store: Store) -> None:
    for key in ("old-done", "old-pending", "new-done"):
        await store.receive_inbound(item(key), T0 + 10)
    await store.settle_inbound("old-done", "done", T0 + 1)
    await store.settle_inbound("new-done", "done", T0 + 100)

    counts = await store.prune(T0 + 50, dry_run=False)

    assert counts.rows["inbox"] == 1
    assert [c.key for c in await store.claim_inbound(("slack",), T0 + 200, T0 + 210)] == ["old-pending"]
    assert not await store.receive_inbound(item("new-done"), T0 + 300)  # still known: a late retry changes nothing
    assert await store.receive_inbound(item("old-done"), T0 + 300)  # forgotten
