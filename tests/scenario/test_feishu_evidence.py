"""Feishu: the restart gate card carries the error logs read before it, with parameters as chips."""

from __future__ import annotations

from pathlib import Path

from tests.scenario.feishu_env import OPS, running_feishu, text
from tests.scenario.harness import policy_file

POLICY = '[approvers]\nexec = ["ou_bob"]\ndeploy = ["ou_bob"]\n'


async def test_feishu_gate_card_shows_the_logs_read_before_it_and_chips(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, "webhook", config=policy_file(tmp_path, POLICY)) as env:
        fake = env.fake
        await fake.say("alice", OPS, "read the payments error logs, then restart payments")
        await env.wait(env.cards)
        root = env.cards()[0]
        review = await env.next_review(root)
        while "restart_service" not in text(review) or "Approval needed" not in text(review):
            await fake.click("alice", review.message_id, "approve")
            review = await env.next_review(root, after=review)
        gate = text(review)
        assert "Since the last review" in gate
        assert "`read_logs`" in gate and "`service=payments`" in gate
        assert "ERROR" in gate  # the log lines themselves, before anyone approves the restart
        assert '"service"' not in gate  # chips, not raw JSON
