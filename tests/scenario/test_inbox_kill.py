"""A real ``tandem serve`` killed with SIGKILL right after it acked a click or a thread reply; the next process
applies it.

To kill it after the ack and before the decision is stored, another request is kept open (its body
never arrives): work that can wait yields to open requests for up to a second (``Acks.calm``), so the
click's (or the reply's) decision is still waiting when the process dies.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable, Callable
from pathlib import Path
from urllib.parse import urlsplit

from blocks import ids
from tests.pgserver import PgServer
from tests.scenario.harness import OPS, button_value, text_of
from tests.scenario.processes import bot_process
from workspace import Workspace, run_workspace
from workspace.models import Message
from workspace.transport import Delivery

QUICK = {"TANDEM_INBOX_LEASE": "1", "TANDEM_INBOX_POLL": "0.2"}


def plan_of(ws: Workspace) -> Message | None:
    cards = [m for m in ws.state.history(OPS) if m.bot_id and not m.is_reply]
    thread = [m for card in cards for m in ws.state.thread(OPS, card.ts)]
    return next((m for m in thread if "Plan for review" in text_of(m) and ids.APPROVE in str(m.blocks)), None)


async def hold_a_request_open(ws: Workspace) -> asyncio.StreamWriter:
    """Another request to the bot, headers sent and body never: the bot's work that can wait waits on it."""
    url = urlsplit(ws.events_url or "")
    _, held = await asyncio.open_connection(url.hostname, url.port)
    held.write(f"POST {url.path} HTTP/1.1\r\nHost: {url.netloc}\r\nContent-Length: 100\r\n\r\n".encode())
    await held.drain()
    return held


async def answer_and_die(
    ws: Workspace, bot: asyncio.subprocess.Process, answer: Callable[[Message], Awaitable[Delivery]]
) -> Message:
    """alice's answer to the plan, acked by ``bot``, which is then killed before it stores the decision."""
    await ws.slash_command("alice", OPS, "restart payments and check errors after")
    await ws.wait_until(lambda _s: plan_of(ws) is not None, within=30)
    plan = plan_of(ws)
    assert plan is not None and plan.thread_ts is not None
    held = await hold_a_request_open(ws)

    answered = await answer(plan)

    assert (answered.status, answered.error) == (200, None)  # acked: alice sees her answer taken
    bot.send_signal(signal.SIGKILL)
    await bot.wait()
    held.close()
    return plan


async def click_and_die(ws: Workspace, bot: asyncio.subprocess.Process) -> Message:
    """alice approves the plan with its button."""
    return await answer_and_die(
        ws, bot, lambda plan: ws.click("alice", OPS, plan.ts, ids.APPROVE, button_value(plan, ids.APPROVE))
    )


async def approved(ws: Workspace, plan: Message) -> None:
    """The review shows the decision, and the thread says what it approved."""
    decided = "Plan approved by <@U0ALICE>"
    await ws.wait_until(lambda s: decided in text_of(s.message(OPS, plan.ts)), within=30)
    told = "<@U0ALICE> approved step 1 (`restart_service`) with the plan"
    await ws.wait_until(lambda s: any(told in text_of(m) for m in s.thread(OPS, plan.thread_ts or "")), within=30)


async def test_click_acked_by_a_serve_process_killed_right_after_is_applied_by_the_next_one(tmp_path: Path) -> None:
    db = tmp_path / "tandem.db"
    async with run_workspace() as ws:
        async with bot_process(ws, db, **QUICK) as first:
            plan = await click_and_die(ws, first)

        async with bot_process(ws, db, **QUICK):
            await approved(ws, plan)


async def test_thread_reply_acked_by_a_serve_process_killed_right_after_is_applied_by_the_next_one(
    tmp_path: Path,
) -> None:
    db = tmp_path / "tandem.db"
    async with run_workspace() as ws:
        async with bot_process(ws, db, **QUICK) as first:
            plan = await answer_and_die(
                ws, first, lambda plan: ws.reply_in_thread("alice", OPS, plan.thread_ts or "", "approve")
            )
        assert "Plan approved" not in text_of(ws.state.message(OPS, plan.ts)), "nothing was applied before the kill"

        async with bot_process(ws, db, **QUICK):
            await ws.wait_until(lambda s: "Plan approved by <@U0ALICE>" in text_of(s.message(OPS, plan.ts)), within=30)

            def thread() -> list[str]:
                return [text_of(m) for m in ws.state.thread(OPS, plan.thread_ts or "")]

            await ws.wait_until(lambda _s: any("Step 1 of 2 needs approval" in t for t in thread()), within=30)
            assert sum(t.startswith("Read as: approve") for t in thread()) == 1, thread()


async def test_click_acked_by_a_replica_killed_right_after_is_applied_by_another_replica(pg_server: PgServer) -> None:
    db = pg_server.schema()
    async with run_workspace() as ws, bot_process(ws, db, **QUICK):  # the replica that stays up
        async with bot_process(ws, db, **QUICK) as dying:  # Slack sends to this one now
            plan = await click_and_die(ws, dying)

        await approved(ws, plan)
