"""Two ``tandem serve`` replicas on one PostgreSQL database: a post one of them is sending stays its own
while it lives (its lease renewed), and is taken over by the other within seconds once it is killed."""

from __future__ import annotations

import asyncio
import signal
import time
from contextlib import AsyncExitStack
from pathlib import Path

import psycopg

from blocks import ids
from storage.postgres.store import PgStore
from tests.pgserver import PgServer
from tests.scenario.harness import OPS, THREE_ANCHORS_ENV, button_value, text_of
from tests.scenario.processes import bot_process
from workspace import run_workspace
from workspace.models import Message

TASK = "restart payments and check errors after"
LEASE = 2.0  # seconds; renewed every half second while a post is under way


async def stamps(db: str) -> list[float]:
    """When each review post being sent was claimed or last renewed."""
    async with await psycopg.AsyncConnection.connect(db, autocommit=True) as conn:
        cur = await conn.execute("SELECT started_at FROM outbox WHERE kind = 'review' AND status = 'sending'")
        return [float(row[0]) for row in await cur.fetchall()]


async def renewed_until(db: str, until: float) -> bool:
    """Wait until the review post being sent was renewed at ``until`` or later (True), or is no longer
    being sent (False: it was sent, or given back)."""
    while True:
        now = await stamps(db)
        if not now or now[0] >= until:
            return bool(now)
        await asyncio.sleep(0.1)


async def test_replica_killed_mid_post_leaves_it_to_the_other_within_seconds_and_a_live_one_keeps_it(
    pg_server: PgServer, tmp_path: Path
) -> None:
    db = pg_server.schema()
    env = {**THREE_ANCHORS_ENV, "TANDEM_DELIVERY_LEASE": str(LEASE)}
    async with run_workspace() as ws, AsyncExitStack() as stack, PgStore(db) as store:
        first = await stack.enter_async_context(bot_process(ws, db, **env))
        to_first = ws.events_url
        await ws.slash_command("alice", OPS, TASK)

        def thread() -> list[Message]:
            cards = [m for m in ws.state.history(OPS) if m.bot_id and not m.is_reply]
            return ws.state.thread(OPS, cards[0].ts) if cards else []

        def gates() -> list[Message]:
            return [m for m in thread() if "needs approval" in text_of(m)]

        await ws.wait_until(lambda _s: any(ids.APPROVE in str(m.blocks) for m in thread()), within=30)
        plan = next(m for m in thread() if ids.APPROVE in str(m.blocks))
        # the gate's post reaches Slack, and its sender never hears back
        ws.state.hold_next("chat.postMessage", after_applying=True)
        await ws.click("alice", OPS, plan.ts, ids.APPROVE, button_value(plan, ids.APPROVE))
        await ws.wait_until(lambda s: not s.holds, within=30)
        [claimed] = await stamps(db)
        await stack.enter_async_context(bot_process(ws, db, **env))  # a second replica, looking for work too
        ws.events_url = to_first

        # the first replica lives: it renews its claim past several leases, and nobody takes it over
        assert await renewed_until(db, claimed + 3 * LEASE), "the post stayed claimed while its sender lived"
        looks = [c for c in ws.state.calls_to("conversations.replies") if c.params.get("include_all_metadata")]
        assert looks == [], "a live sender's post was taken over"

        first.send_signal(signal.SIGKILL)
        await first.wait()
        killed = time.monotonic()
        [run] = await store.list_runs()
        [gate] = gates()
        review_id = button_value(gate, ids.APPROVE)
        while await store.delivery_status(run.id, "review", review_id) != "sent":
            assert time.monotonic() - killed < 30, "the other replica never took the post over"
            await asyncio.sleep(0.05)
        took = time.monotonic() - killed
        print(f"the other replica took the post over {took:.1f} s after the kill (lease {LEASE:.0f} s)")
        assert took < 5 * LEASE
        assert len(gates()) == 1, "it looked before posting: the gate is in the thread once"
