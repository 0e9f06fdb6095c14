"""Feishu: a run that changed nothing is done without a review; a reply in its thread reopens it."""

from __future__ import annotations

import json
from pathlib import Path

from agent.models import RunState
from tests.scenario.feishu_env import OPS, FEnv, running_feishu, text
from workspace.feishu_fake import Posted


def _told(env: FEnv, open_id: str) -> list[str]:
    return [json.dumps(card, ensure_ascii=False) for _, who, card in env.fake.ephemerals if who == open_id]


def _done_lines(env: FEnv, root: Posted) -> int:
    return sum("Done" in text(m) for m in env.bot_thread(root))


async def _done_check(env: FEnv) -> tuple[Posted, RunState]:
    await env.fake.say("alice", OPS, "check checkout health")
    await env.wait(env.cards)
    root = env.cards()[0]
    await env.wait(lambda: _done_lines(env, root) == 1)
    await env.idle()
    state, _ = await env.bot.deps.store.load((await env.bot.deps.store.list_runs())[0].id)
    return root, state


async def test_feishu_read_only_check_is_done_and_a_reply_refines_it(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        root, before = await _done_check(env)
        assert before.status == "done" and env.reviews(root) == [], "nobody was asked anything"
        assert "Done" in text(root)
        done = next(m for m in env.bot_thread(root) if "Done" in text(m))
        for _ in range(2):  # a second click of the same vote is not counted again
            voted = await env.fake.click("alice", done.message_id, "vote", vote="up")
            assert voted.body["toast"] == {"type": "success", "content": "Thanks: noted 👍 for this result."}
        votes = [e for e in await env.bot.deps.store.events(before.id) if e.kind == "result_feedback"]
        assert [(e.actor, e.payload) for e in votes] == [("ou_alice", {"vote": "up"})]

        await env.fake.say("alice", OPS, "show it as a table", root_id=root.message_id, mention_bot=False)
        await env.wait(lambda: _done_lines(env, root) == 2)
        await env.idle()
        after, _ = await env.bot.deps.store.load(before.id)
        assert after.status == "done" and "|" in (after.output or "") and after.output != before.output
        assert any("Reopened by" in text(m) for m in env.bot_thread(root))
        tables = [e for e in root.card["body"]["elements"] if e["tag"] == "table"]
        assert tables and "Done" in text(root), "the run card shows the new result, its table as a table"
        assert "Reopened by" in text(root) and "show it as a table" in text(root), "and who reopened it, why"


async def test_feishu_outsider_reply_in_a_done_thread_is_refused(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        root, before = await _done_check(env)
        trail = await env.bot.deps.store.events(before.id)
        await env.fake.say("carol", OPS, "check auth instead", root_id=root.message_id, mention_bot=False)
        await env.wait(lambda: any("Nothing changed" in t for t in _told(env, "ou_carol")))
        await env.idle()
        assert (await env.bot.deps.store.load(before.id))[0] == before
        assert await env.bot.deps.store.events(before.id) == trail
        assert _done_lines(env, root) == 1
