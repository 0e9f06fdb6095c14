"""An MCP server's questions answered from Feishu cards: a choice button, a number typed in a form, a yes."""

from __future__ import annotations

from pathlib import Path

from tests.mcpservers.servers import calls, eliciting_toml
from tests.scenario.feishu_env import OPS, running_feishu, text
from tests.scenario.harness import policy_file


async def test_feishu_mcp_question_answered_from_cards_moves_the_service_once(tmp_path: Path) -> None:
    log = tmp_path / "ops.log"
    config = policy_file(tmp_path, eliciting_toml("deploys", log, trust="trusted"))
    async with running_feishu(tmp_path, config=config) as env:
        fake = env.fake
        await fake.say("alice", OPS, "move service web")
        await env.wait(env.cards)
        root = env.cards()[0]
        review = await env.next_review(root, within=30)
        while "Where should web move?" not in text(review):
            await fake.click("alice", review.message_id, "approve")
            review = await env.next_review(root, after=review, within=30)
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
        assert [c for c in calls(log) if c != "asked"] == ["move", "web", "us-east-1", "4", "true"]
