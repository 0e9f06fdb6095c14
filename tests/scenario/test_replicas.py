"""Three ``tandem serve`` replicas on one PostgreSQL database, sharing nothing but it.

Clicks are spread over the replicas as a load balancer would spread them; a replica
killed in the middle of a deploy leaves the run to the others, who ask a person
instead of running the deploy again.
"""

from __future__ import annotations

import asyncio
import copy
import signal
from contextlib import AsyncExitStack
from pathlib import Path

from blocks import ids
from storage.postgres.store import PgStore
from tests.pgserver import PgServer
from tests.scenario.harness import OPS, THREE_ANCHORS_ENV, button_value, text_of
from tests.scenario.processes import bot_process
from workspace import Workspace, run_workspace
from workspace.models import Message

TASK = "inspect cluster blue then upgrade cluster blue"
CLICKS = 50


def calls(folder: Path) -> list[str]:
    log = folder / "calls.log"
    return log.read_text().split() if log.exists() else []


async def test_three_replicas_fifty_clicks_make_one_transition_and_a_killed_deploy_is_not_rerun(
    pg_server: PgServer, tmp_path: Path
) -> None:
    db = pg_server.schema()
    env = {
        **THREE_ANCHORS_ENV,
        "TANDEM_TOOLS": "tests.cli.held_tools",
        "HELD_TOOLS_DIR": str(tmp_path),
        "TANDEM_STEP_LEASE": "1",
        "TANDEM_SCHEDULER_INTERVAL": "0.5",
    }
    async with run_workspace() as ws, AsyncExitStack() as stack, PgStore(db) as store:
        procs, fronts = [], []
        for _ in range(3):
            procs.append(await stack.enter_async_context(bot_process(ws, db, **env)))
            front: Workspace = copy.copy(ws)  # the same workspace, sending to this replica only
            front.events_url = ws.events_url
            fronts.append(front)

        def latest_review(marker: str) -> Message | None:
            cards = [m for m in ws.state.history(OPS) if m.bot_id and not m.is_reply]
            thread = ws.state.thread(OPS, cards[0].ts) if cards else []
            return next((m for m in reversed(thread) if marker in text_of(m) and ids.APPROVE in str(m.blocks)), None)

        await fronts[0].slash_command("alice", OPS, TASK)
        await ws.wait_until(lambda _s: latest_review("Plan") is not None, within=30)
        plan = latest_review("Plan")
        assert plan is not None
        [run] = await store.list_runs()

        value = button_value(plan, ids.APPROVE)
        clicks = [fronts[i % 3].click("alice", OPS, plan.ts, ids.APPROVE, value) for i in range(CLICKS)]
        deliveries = await asyncio.gather(*clicks)
        assert [(d.status, d.error) for d in deliveries] == [(200, None)] * CLICKS, "every click acknowledged"
        await ws.wait_until(lambda _s: latest_review("needs approval") is not None, within=30)
        assert [e.kind for e in await store.events(run.id)].count("decided") == 1, "one transition"
        assert calls(tmp_path) == ["inspect_cluster"], "one tool execution"

        gate = latest_review("needs approval")
        assert gate is not None
        (tmp_path / "hold").touch()
        await fronts[0].click("alice", OPS, gate.ts, ids.APPROVE, button_value(gate, ids.APPROVE))
        await ws.wait_until(lambda _s: calls(tmp_path) == ["inspect_cluster", "upgrade_cluster"], within=30)
        procs[0].send_signal(signal.SIGKILL)  # the replica running the deploy dies in the middle of it
        await procs[0].wait()
        (tmp_path / "hold").unlink()

        async def recovered() -> str:
            while True:
                state, _ = await store.load(run.id)
                if state.pending is not None and state.pending.anchor == "recovery":
                    return state.pending.id
                await asyncio.sleep(0.1)

        review_id = await asyncio.wait_for(recovered(), 30)
        await ws.wait_until(lambda _s: latest_review("may or may not") is not None, within=30)

        async def marked_sent() -> None:  # the worker marks the row after Slack took the post
            while True:
                if await store.delivery_status(run.id, "review", review_id) == "sent":
                    return
                await asyncio.sleep(0.05)

        await asyncio.wait_for(marked_sent(), 30)
        assert calls(tmp_path) == ["inspect_cluster", "upgrade_cluster"], "the deploy did not run again"
