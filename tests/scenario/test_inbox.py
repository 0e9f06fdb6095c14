"""An acknowledged click is an applied click: what a person did is kept before the ack (agent.inbox).

The "crash" cuts the bot's work short right after the ack (its background work is cancelled,
as a dying process would lose it), then a fresh bot on the same database file takes over.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import aiohttp
import pytest

from agent.usecases import UseCases
from blocks import ids
from cli.serve import feishu_serving, serving
from tests.scenario.feishu_env import FEnv, running_feishu
from tests.scenario.feishu_env import settings_for as feishu_settings
from tests.scenario.feishu_env import text as card_of
from tests.scenario.harness import OPS, Env, running, settings_for, text_of
from workspace import Workspace, run_workspace
from workspace.feishu_fake import run_feishu
from workspace.models import Message
from workspace.transport import Delivery, send

QUICK = {"inbox_lease": 1.0, "inbox_poll": 0.2}
"""A dead process's clicks are taken over after 1 s (10 s by default)."""


def stuck(monkeypatch: pytest.MonkeyPatch, method: str) -> threading.Event:
    """``UseCases.<method>`` never returns (until the test undoes it): the process dies inside it."""
    entered = threading.Event()

    async def never(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        await asyncio.Event().wait()

    monkeypatch.setattr(UseCases, method, never)
    return entered


async def again(env: Env, delivered: Delivery) -> Delivery:
    """Deliver the same signed request once more, byte for byte (a retry, or a replay)."""
    assert env.ws.events_url is not None
    if delivered.kind == "slash_command":
        body = urlencode(delivered.sent)
    else:
        body = urlencode({"payload": json.dumps(delivered.sent)})
    async with aiohttp.ClientSession() as session:
        return await send(
            session, env.ws.events_url, kind=delivered.kind, body=body, sent=delivered.sent, headers=delivered.headers
        )


Act = Callable[[Env, Message, Message], Awaitable[Delivery]]


async def dies_after_ack(
    ws: Workspace, db: Path, monkeypatch: pytest.MonkeyPatch, method: str, act: Act
) -> tuple[Message, Message]:
    """A bot starts a run; ``act`` (on its card and plan) is acked, and the bot dies inside ``UseCases.<method>``."""
    async with serving(settings_for(ws, db, **QUICK), port=0) as bot:
        ws.events_url = f"{bot.url}/slack/events"
        env = Env(ws=ws, bot=bot, db=db)
        card = await env.start("restart payments and check errors after")
        plan = await env.next_review(card)
        entered = stuck(monkeypatch, method)

        acked = await act(env, card, plan)

        assert acked.status == 200 and acked.error is None  # acked: the person sees it taken
        assert await asyncio.to_thread(entered.wait, 10)
        await bot.deps.background.drain(grace=0)  # the process dies before anything is stored
        monkeypatch.undo()
        assert "Plan approved" not in text_of(ws.state.message(OPS, plan.ts))
    return card, plan


async def test_click_acked_by_a_process_that_dies_is_applied_by_the_next_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "tandem.db"
    async with run_workspace() as ws:

        async def click(env: Env, card: Message, plan: Message) -> Delivery:
            clicked: Delivery = await env.click("alice", plan, ids.APPROVE)
            return clicked

        card, plan = await dies_after_ack(ws, db, monkeypatch, "decide", click)

        async with serving(settings_for(ws, db, **QUICK), port=0) as bot:
            ws.events_url = f"{bot.url}/slack/events"
            decided = "Plan approved by <@U0ALICE>"
            await ws.wait_until(lambda s: decided in text_of(s.message(OPS, plan.ts)), within=15)
            told = "<@U0ALICE> approved step 1 (`restart_service`) with the plan"
            await ws.wait_until(lambda s: any(told in text_of(m) for m in s.thread(OPS, card.ts)), within=15)
            await bot.deps.background.idle()


async def test_click_delivered_twice_is_applied_once_and_nobody_is_told_it_was_already_decided(
    tmp_path: Path,
) -> None:
    async with running(tmp_path) as env:
        card = await env.start("restart payments and check errors after")
        plan = await env.next_review(card)

        first = await env.click("alice", plan, ids.APPROVE)
        second = await again(env, first)
        await env.idle()

        assert first.status == second.status == 200
        assert "Plan approved by <@U0ALICE>" in text_of(env.ws.state.message(OPS, plan.ts))
        told = [e.text for e in env.ws.state.ephemerals_for("U0ALICE")]
        assert not any("Already" in t for t in told), told
        run_id = (await env.bot.deps.store.list_runs())[0].id
        approvals = [e for e in await env.bot.deps.store.events(run_id) if (e.kind, e.actor) == ("decided", "U0ALICE")]
        assert len(approvals) == 1, approvals


async def test_slash_command_replayed_byte_for_byte_starts_one_run(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        first = await env.ws.slash_command("alice", OPS, "restart payments and check errors after")
        replayed = await again(env, first)
        await env.wait(env.cards)
        await env.idle()

        assert first.status == replayed.status == 200
        assert "already received" in replayed.body
        assert len(env.cards()) == 1
        assert len(await env.bot.deps.store.list_runs()) == 1


async def test_feishu_callback_answered_by_a_process_that_dies_is_applied_by_the_next_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "tandem.db"
    async with run_feishu() as fake:
        async with feishu_serving(feishu_settings(fake, db, **QUICK), port=0) as bot:
            fake.events_url = f"{bot.url}/feishu/events"
            env = FEnv(fake=fake, bot=bot, db=db)
            root, plan = await env.plan_of("restart payments and check errors after")
            entered = stuck(monkeypatch, "approve")

            answer = await fake.click("alice", plan.message_id, "approve")

            assert answer.status == 200 and "toast" in answer.body  # answered: Tandem is on it
            assert await asyncio.to_thread(entered.wait, 10)
            await bot.background.drain(grace=0)  # the process dies before the decision is stored
            monkeypatch.undo()
            assert "approved by" not in card_of(plan)

        async with feishu_serving(feishu_settings(fake, db, **QUICK), port=0) as bot:
            fake.events_url = f"{bot.url}/feishu/events"
            env = FEnv(fake=fake, bot=bot, db=db)
            await env.wait(lambda: "approved by <at id=ou_alice></at>" in card_of(plan), within=15)
            await bot.background.idle()


async def test_feishu_callback_delivered_twice_is_applied_once(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        root, plan = await env.plan_of("restart payments and check errors after")
        value = env.fake.button(plan.message_id, "approve")
        event = env.fake.click_event("alice", plan.message_id, value)

        first = await env.fake.deliver(event)
        second = await env.fake.deliver(event)
        await env.idle()

        assert first.body["toast"]["type"] == "success"
        assert second.body["toast"]["type"] == "info"
        run_id = (await env.bot.deps.store.list_runs())[0].id
        approvals = [e for e in await env.bot.deps.store.events(run_id) if (e.kind, e.actor) == ("decided", "ou_alice")]
        assert len(approvals) == 1, approvals


async def test_thread_reply_acked_by_a_process_that_dies_is_read_by_the_next_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "tandem.db"
    async with run_workspace() as ws:

        async def reply(env: Env, card: Message, plan: Message) -> Delivery:
            return await ws.reply_in_thread("alice", OPS, card.ts, "Looks good, proceed")

        card, plan = await dies_after_ack(ws, db, monkeypatch, "say", reply)

        async with serving(settings_for(ws, db, **QUICK), port=0) as bot:
            ws.events_url = f"{bot.url}/slack/events"
            await ws.wait_until(lambda s: "Plan approved by <@U0ALICE>" in text_of(s.message(OPS, plan.ts)), within=15)
            assert any("Read as" in text_of(m) for m in ws.state.thread(OPS, card.ts))
            await bot.deps.background.idle()
