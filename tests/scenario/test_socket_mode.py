"""Two ``tandem socket`` processes on one database, as Slack's Socket Mode serves an app with several
connections: each event goes to one connection picked at random, and a click that reaches both
processes (a double click, a person and a colleague) still makes one transition."""

from __future__ import annotations

import asyncio
import random
from contextlib import AsyncExitStack
from pathlib import Path

from blocks import ids
from storage.facade import AsyncStore
from tests.scenario.harness import OPS, THREE_ANCHORS_ENV, button_value, text_of
from tests.scenario.processes import socket_process
from workspace import run_workspace
from workspace.models import Message

TASK = "restart payments and check errors after"
CLICKS = 20


async def test_two_socket_mode_processes_on_one_database_make_one_transition_per_click(tmp_path: Path) -> None:
    db = tmp_path / "tandem.db"
    async with run_workspace() as ws, AsyncExitStack() as stack:
        assert ws.socket is not None
        ws.socket.rng = random.Random(1)
        for _ in range(2):
            await stack.enter_async_context(socket_process(ws, db, **THREE_ANCHORS_ENV))
        await ws.wait_until(lambda _s: ws.socket is not None and ws.socket.connected == 2, within=30)

        def latest_review(marker: str) -> Message | None:
            cards = [m for m in ws.state.history(OPS) if m.bot_id and not m.is_reply]
            thread = ws.state.thread(OPS, cards[0].ts) if cards else []
            return next((m for m in reversed(thread) if marker in text_of(m) and ids.APPROVE in str(m.blocks)), None)

        started = await ws.slash_command("alice", OPS, TASK)
        assert (started.status, started.error) == (200, None)
        await ws.wait_until(lambda _s: latest_review("Plan") is not None, within=30)
        plan = latest_review("Plan")
        assert plan is not None
        value = button_value(plan, ids.APPROVE)
        deliveries = await asyncio.gather(*(ws.click("alice", OPS, plan.ts, ids.APPROVE, value) for _ in range(CLICKS)))
        assert [(d.status, d.error) for d in deliveries] == [(200, None)] * CLICKS, "every click acknowledged"
        reached = {d.headers["X-Socket-Connection"] for d in deliveries}
        assert len(reached) == 2, "the clicks reached both processes"
        await ws.wait_until(lambda _s: latest_review("needs approval") is not None, within=30)

        async with AsyncStore(db) as store:
            [run] = await store.list_runs()
            events = await store.events(run.id)
        assert [e.kind for e in events].count("decided") == 1, "one transition for twenty clicks"
        cards = [m for m in ws.state.history(OPS) if m.bot_id and not m.is_reply]
        gates = [m for m in ws.state.thread(OPS, cards[0].ts) if "needs approval" in text_of(m)]
        assert len(cards) == 1 and len(gates) == 1, "one run, and its next review asked once"
        # every other click is told, privately, that it came after the approval
        await ws.wait_until(lambda s: len(s.ephemerals_for("U0ALICE")) >= CLICKS - 1, within=30)
        told = [text_of(e) for e in ws.state.ephemerals_for("U0ALICE")]  # type: ignore[arg-type]
        assert len(told) == CLICKS - 1 and all("Already approved by <@U0ALICE>" in t for t in told), told
