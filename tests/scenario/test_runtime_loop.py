"""The runtime works on a loop of its own: a blocked runtime never holds up an ack."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.scenario import blocking_tools
from tests.scenario.feishu_env import OPS as FEISHU_OPS
from tests.scenario.feishu_env import running_feishu, text
from tests.scenario.harness import OPS, running, text_of


async def test_acks_while_a_tool_blocks_the_runtime_loop_answered_at_once(tmp_path: Path) -> None:
    blocking_tools.reset()
    async with running(tmp_path, tools="tests.scenario.blocking_tools") as env:
        try:
            started = await env.ws.slash_command("alice", OPS, "freeze loop")
            assert started.status == 200 and started.error is None
            # the positive signal: the tool is inside its blocking call, so the runtime's loop is stuck
            assert await asyncio.to_thread(blocking_tools.ENTERED.wait, 30), "the tool never started"
            acks = [await env.ws.slash_command("alice", OPS, "help") for _ in range(3)]
            acks.append(await env.ws.slash_command("alice", OPS, "list"))
            assert [(a.status, a.error) for a in acks] == [(200, None)] * 4
            assert not blocking_tools.LEFT.is_set(), "every ack came while the runtime's loop was still blocked"
        finally:
            blocking_tools.RELEASE.set()
        await env.wait(env.cards, within=30)  # the card comes from the outbox, on the loop the tool blocked
        card = env.cards()[0]
        await env.wait(lambda: "Done" in text_of(env.ws.state.message(OPS, card.ts)), within=30)
        await env.wait(lambda: any("released" in text_of(m) for m in env.thread(card)))  # the result, whole


async def test_feishu_served_alone_acks_while_a_tool_blocks_the_runtime_loop(tmp_path: Path) -> None:
    blocking_tools.reset()
    async with running_feishu(tmp_path, tools="tests.scenario.blocking_tools") as env:
        try:
            started = await env.fake.say("alice", FEISHU_OPS, "freeze loop")
            assert started.status == 200
            assert await asyncio.to_thread(blocking_tools.ENTERED.wait, 30), "the tool never started"
            acks = [await env.fake.say("alice", FEISHU_OPS, "help") for _ in range(3)]
            assert [a.status for a in acks] == [200] * 3
            assert not blocking_tools.LEFT.is_set(), "every ack came while the runtime's loop was still blocked"
        finally:
            blocking_tools.RELEASE.set()
        await env.wait(env.cards, within=30)
        await env.wait(lambda: "released" in text(env.cards()[0]), within=30)
