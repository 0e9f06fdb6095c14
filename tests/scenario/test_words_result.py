"""A result is headed by a sentence saying what ran, in the tools' own words, not by tool names and values."""

from __future__ import annotations

from pathlib import Path

from blocks import ids
from tests.scenario.feishu_env import running_feishu, text
from tests.scenario.harness import running, text_of

TASK = "restart payments and check errors after"
SAID = "Done: restarted payments and read the payments logs."


async def test_slack_result_headline_is_a_sentence_in_the_tools_words(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card = await env.start(TASK)
        review = await env.next_review(card)
        await env.click("alice", review, ids.APPROVE)
        result = await env.next_review(card, after=review)
        assert SAID in text_of(result)
        assert "restart_service payments" not in text_of(result).split("\n\n")[0]


async def test_feishu_result_headline_is_a_sentence_in_the_tools_words(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        root, plan = await env.plan_of(TASK)
        await env.fake.click("alice", plan.message_id, "approve")
        result = await env.next_review(root, after=plan)
        assert SAID in text(result)
