"""Cancelling says so once, in one line that names who cancelled: on Slack and on Feishu."""

from __future__ import annotations

from pathlib import Path

from blocks import ids
from tests.scenario.feishu_env import running_feishu, text
from tests.scenario.harness import running, text_of


async def test_slack_cancel_button_posts_one_line_naming_who_cancelled(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card = await env.start("restart payments and check errors after")
        plan = await env.next_review(card)
        await env.click("alice", plan, ids.CANCEL)
        posts = lambda: [m for m in env.thread(card) if m.ts != plan.ts and "Cancelled" in text_of(m)]  # noqa: E731
        await env.wait(posts)
        await env.idle()
        assert [text_of(m).splitlines()[0] for m in posts()] == ["🛑 Cancelled by <@U0ALICE>."]


async def test_feishu_cancel_button_posts_one_line_naming_who_cancelled(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        root, plan = await env.plan_of("restart payments and check errors after")
        await env.fake.click("alice", plan.message_id, "cancel")
        said = lambda: [m for m in env.bot_thread(root) if m.message_id != plan.message_id and "Cancel" in text(m)]  # noqa: E731
        await env.wait(said)
        await env.idle()
        assert len(said()) == 1, [text(m) for m in said()]
        assert "Cancelled by" in text(said()[0])
