"""Report posts on every backend: scheduled once per key, claimed once, written to the outbox with the claim."""

from __future__ import annotations

import asyncio

from agent.models import Outbound, ScheduledPost, WeeklyReport
from agent.ports import Store
from storage.postgres.store import PgStore
from tests.pgserver import PgServer

T0 = 1_000_000.0
WEEK = 7 * 86_400.0
SLACK = "slack"


def post(until: float = T0, channel: str = "C0OPS", *, key: str | None = None, manual: bool = False) -> ScheduledPost:
    return ScheduledPost(
        key=key or f"{channel}@{until:.0f}", channel=channel, since=until - WEEK, until=until, manual=manual
    )


def outbox(key: str) -> Outbound:
    return Outbound(SLACK, [WeeklyReport(key=key, channel="C0OPS", since=T0 - WEEK, until=T0)])


async def posts_in_outbox(store: Store) -> list[str]:
    rows = await store.due_deliveries(SLACK, T0 + 10 * WEEK, 60.0)
    return [r.message.key for r in rows if isinstance(r.message, WeeklyReport)]


async def test_due_posts_before_and_after_its_time_returns_it_only_once_due(store: Store) -> None:
    await store.schedule_post(post(), T0 - 3600)
    assert await store.due_posts(T0 - 1) == []
    assert await store.due_posts(T0) == [post()]


async def test_schedule_post_twice_with_one_key_keeps_one(store: Store) -> None:
    await store.schedule_post(post(), T0 - 3600)
    await store.schedule_post(post(), T0 - 1800)
    assert await store.due_posts(T0 + 1) == [post()]


async def test_claim_post_twice_writes_one_outbox_row(store: Store) -> None:
    await store.schedule_post(post(), T0 - 3600)
    first = await store.claim_post(post().key, outbox(post().key), T0 + 1)
    second = await store.claim_post(post().key, outbox(post().key), T0 + 2)
    assert (first, second) == (True, False)
    assert await posts_in_outbox(store) == [post().key]
    assert await store.due_posts(T0 + 3) == []


async def test_claim_post_of_an_unknown_key_claims_nothing_and_writes_nothing(store: Store) -> None:
    assert await store.claim_post("C0OPS@1", outbox("C0OPS@1"), T0) is False
    assert await posts_in_outbox(store) == []


async def test_claim_post_by_many_at_once_lets_one_win(store: Store) -> None:
    await store.schedule_post(post(), T0 - 3600)
    won = await asyncio.gather(*(store.claim_post(post().key, outbox(post().key), T0 + i) for i in range(8)))
    assert sorted(won) == [False] * 7 + [True]
    assert await posts_in_outbox(store) == [post().key]


async def test_schedule_post_at_another_future_time_supersedes_the_earlier_plan(store: Store) -> None:
    await store.schedule_post(post(T0 + 3600), T0)
    await store.schedule_post(post(T0 + 7200), T0 + 1)  # the policy moved the post an hour later
    assert await store.due_posts(T0 + WEEK) == [post(T0 + 7200)]


async def test_schedule_post_moved_away_and_back_is_scheduled_again(store: Store) -> None:
    await store.schedule_post(post(T0 + 3600), T0)
    await store.schedule_post(post(T0 + 7200), T0 + 1)
    await store.schedule_post(post(T0 + 3600), T0 + 2)
    assert await store.due_posts(T0 + WEEK) == [post(T0 + 3600)]


async def test_schedule_post_after_it_was_posted_leaves_it_posted(store: Store) -> None:
    await store.schedule_post(post(), T0 - 3600)
    assert await store.claim_post(post().key, outbox(post().key), T0 + 1)
    await store.schedule_post(post(), T0 + 2)
    assert await store.due_posts(T0 + WEEK) == []


async def test_schedule_post_keeps_a_missed_post_and_manual_ones(store: Store) -> None:
    missed, manual = post(T0), post(T0 + 10, key="C0OPS@manual-x", manual=True)
    await store.schedule_post(missed, T0 - 3600)
    await store.schedule_post(manual, T0 + 5)
    await store.schedule_post(post(T0 + WEEK), T0 + 3 * 3600)  # the next week's, after a restart
    assert await store.due_posts(T0 + WEEK) == [missed, manual, post(T0 + WEEK)]


async def test_claim_post_from_two_postgres_replicas_at_once_lets_one_win(pg_server: PgServer) -> None:
    url = pg_server.schema()
    async with PgStore(url) as one, PgStore(url) as two:
        await one.schedule_post(post(), T0 - 3600)
        claims = [s.claim_post(post().key, outbox(post().key), T0 + 1) for s in (one, two) for _ in range(5)]
        won = await asyncio.gather(*claims)
        assert sorted(won) == [False] * 9 + [True]
        assert await posts_in_outbox(two) == [post().key]
