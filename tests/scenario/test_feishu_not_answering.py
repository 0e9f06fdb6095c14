"""When Tandem cannot learn its tenant from Feishu, the person hears why: Feishu is not answering (try again),
or Feishu refuses the app (an admin must act). Through the webhook, with the local Feishu fake failing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.scenario.feishu_env import OPS, running_feishu

TASK = "restart payments and check errors after"
CLICK = {"action": "approve", "review": "not-a-review", "run": "not-a-run"}


async def test_feishu_click_while_the_tenant_call_fails_transiently_says_try_again(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        fake = env.fake
        fake.failures.append(("tenant/query", 500, 1500))
        card = fake.message_event("alice", OPS, "hello")["event"]["message"]["message_id"]  # a message to click on
        answer = await fake.deliver(fake.click_event("alice", card, CLICK))
        assert answer.status == 200 and answer.body["toast"]["type"] == "error"
        assert "Feishu is not answering; try again" in answer.body["toast"]["content"]
        assert "admin" not in answer.body["toast"]["content"]

        again = await fake.deliver(fake.click_event("alice", card, CLICK))  # Feishu answers again: the click is read
        assert "not answering" not in again.body["toast"]["content"]


async def test_feishu_message_while_the_tenant_call_fails_is_pushed_again_and_then_starts_the_run(
    tmp_path: Path,
) -> None:
    async with running_feishu(tmp_path) as env:
        fake = env.fake
        fake.failures.append(("tenant/query", 503, 0))
        event = fake.message_event("alice", OPS, TASK)
        answer = await fake.deliver(event)
        assert answer.status == 503 and "Feishu is not answering; try again" in answer.body["error"]
        assert await env.bot.deps.store.list_runs() == []

        assert (await fake.deliver(event)).status == 200  # Feishu pushes the event again
        await env.wait(env.cards)


async def test_feishu_click_when_feishu_refuses_the_app_says_an_admin_must_check_it(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, app_secret="not-the-secret") as env:
        fake = env.fake
        card = fake.message_event("alice", OPS, "hello")["event"]["message"]["message_id"]
        answer = await fake.deliver(fake.click_event("alice", card, CLICK))
        told = answer.body["toast"]["content"]
        assert "does not accept Tandem's app" in told and "10014" in told and "admin" in told
        assert "not answering" not in told


@pytest.mark.parametrize("transport", ["webhook", "ws"])
async def test_feishu_click_while_the_tenant_call_hangs_is_answered_in_time_and_the_call_goes_on(
    tmp_path: Path, transport: str
) -> None:
    """Feishu drops a card callback's answer after 3 s. A click while the tenant lookup hangs is told Feishu is
    not answering within that; the lookup is not made again by each click, and once it answers clicks are read."""
    async with running_feishu(tmp_path, transport) as env:
        fake = env.fake
        card = fake.message_event("alice", OPS, "hello")["event"]["message"]["message_id"]
        answered = fake.slow["tenant/query"] = asyncio.Event()
        for _ in range(2):
            async with asyncio.timeout(3.0):  # Feishu's own deadline for a callback's answer
                answer = await fake.deliver(fake.click_event("alice", card, CLICK))
            assert answer.status == 200 and answer.body["toast"]["type"] == "error"
            assert "Feishu is not answering; try again" in answer.body["toast"]["content"]
        assert fake.held == ["GET /open-apis/tenant/v2/tenant/query"]  # one call, still waiting

        answered.set()
        again = await fake.deliver(fake.click_event("alice", card, CLICK))
        assert "not answering" not in again.body["toast"]["content"]
        assert [c for c in fake.calls if "tenant/query" in c] == ["GET /open-apis/tenant/v2/tenant/query"]
