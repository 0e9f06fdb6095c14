"""An MCP server's questions answered from Feishu cards: a choice button, a number typed in a form, a yes;
or declined with the card's Decline button."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from tests.mcpservers.servers import calls, eliciting_toml
from tests.scenario.feishu_env import OPS, FEnv, running_feishu, text
from tests.scenario.harness import policy_file
from workspace.feishu_fake import Posted


@asynccontextmanager
async def first_question(tmp_path: Path) -> AsyncIterator[tuple[FEnv, Posted, Posted]]:
    """The Feishu app with the eliciting server, ``move service web`` started by alice: the environment, the
    run's root card and its first question's card."""
    config = policy_file(tmp_path, eliciting_toml("deploys", tmp_path / "ops.log", trust="trusted"))
    async with running_feishu(tmp_path, config=config) as env:
        await env.fake.say("alice", OPS, "move service web")
        await env.wait(env.cards)
        root = env.cards()[0]
        review = await env.next_review(root, within=30)
        while "Where should web move?" not in text(review):
            await env.fake.click("alice", review.message_id, "approve")
            review = await env.next_review(root, after=review, within=30)
        yield env, root, review


async def test_feishu_mcp_question_answered_from_cards_moves_the_service_once(tmp_path: Path) -> None:
    async with first_question(tmp_path) as (env, root, review):
        fake = env.fake
        await fake.click("alice", review.message_id, "answer", answer="us-east-1")
        replicas = await env.next_review(root, after=review, within=30)
        assert "Replicas (a whole number)" in text(replicas)
        refused = await fake.click("alice", replicas.message_id, "answer_text", {"text": "lots"})
        assert refused.body["toast"]["type"] == "error" and "'lots' is not a number" in refused.body["toast"]["content"]
        await fake.click("alice", replicas.message_id, "answer_text", {"text": "4"})
        drain = await env.next_review(root, after=replicas, within=30)
        assert "Drain first" in text(drain)
        await fake.click("alice", drain.message_id, "answer", answer=True)
        result = await env.next_review(root, after=drain, within=30)
        assert "web moved to us-east-1 with 4 replicas, drained first" in text(result)
        assert [c for c in calls(tmp_path / "ops.log") if c != "asked"] == ["move", "web", "us-east-1", "4", "true"]


async def test_feishu_mcp_question_declined_from_its_card_sends_decline(tmp_path: Path) -> None:
    async with first_question(tmp_path) as (env, root, review):
        assert "Decline" in text(review)
        await env.fake.click("alice", review.message_id, "decline")
        result = await env.next_review(root, after=review, within=30)
        assert "web not moved (decline)" in text(result)
        assert [c for c in calls(tmp_path / "ops.log") if c != "asked"] == ["kept", "web", "decline"]
