"""A Feishu thread reply that only asks something is answered in the thread, and the review stays pending
(the real webhook with encrypted, signed events, against the Feishu fake)."""

from __future__ import annotations

from pathlib import Path

from tests.scenario.feishu_env import OPS, running_feishu, text
from workspace.feishu_fake import button_values


async def test_feishu_thread_question_at_the_plan_review_is_answered_and_the_plan_still_waits(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        fake = env.fake
        await fake.say("alice", OPS, "restart payments and check errors after")
        await env.wait(env.cards)
        root = env.cards()[0]
        plan = await env.next_review(root)

        await fake.say("alice", OPS, "为什么要重启？", root_id=root.message_id, mention_bot=False)

        await env.wait(lambda: any("asked:" in text(m) for m in env.bot_thread(root)))
        answer = next(text(m) for m in env.bot_thread(root) if "asked:" in text(m))
        assert "Step 1 `restart_service` service=payments" in answer and "It has not run yet." in answer
        await env.idle()
        assert button_values(plan.card), "the plan review keeps its buttons"
        assert env.reviews(root)[-1].message_id == plan.message_id, "no other review was opened"
