"""A correction does what was said, no less, from a Feishu thread (the Feishu fake, signed callbacks)."""

from __future__ import annotations

from pathlib import Path

from tests.scenario.feishu_env import OPS, running_feishu, text


async def test_feishu_reply_logs_first_keeps_the_check_after_the_restart(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        await env.fake.say("alice", OPS, "restart payments and check errors after")
        await env.wait(env.cards)
        root = env.cards()[0]
        plan = await env.next_review(root)

        await env.fake.say("alice", OPS, "先看日志再重启", root_id=root.message_id, mention_bot=False)

        replanned = await env.next_review(root, after=plan)
        shown = text(replanned)
        assert shown.count("read_logs") == 2, shown
        assert shown.index("read_logs") < shown.index("restart_service") < shown.rindex("read_logs")
