"""The whole story in Feishu: through the real webhook with encrypted, signed events and card callbacks,
and over the long connection (lark-oapi's WebSocket client against the fake's WebSocket)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scenario.feishu_env import OPS, running_feishu, text
from tests.scenario.harness import policy_file
from workspace.feishu_fake import button_values

POLICY = '[approvers]\nexec = ["ou_bob"]\ndeploy = ["ou_bob"]\n'


@pytest.mark.parametrize("transport", ["webhook", "ws"])
async def test_feishu_story_plan_changes_replan_gate_result_correction_done(tmp_path: Path, transport: str) -> None:
    async with running_feishu(tmp_path, transport, config=policy_file(tmp_path, POLICY)) as env:
        fake, store = env.fake, env.bot.deps.store
        started = await fake.say("alice", OPS, "restart payments and check errors after")
        assert started.status == 200
        await env.wait(env.cards)
        root = env.cards()[0]

        plan = await env.next_review(root)
        assert "restart_service" in text(plan) and "payments" in text(plan)

        # Request changes with the card's form: the answer is the decided card, inline
        form = {"feedback": "restart checkout, not payments", "intent": "replan"}
        answer = await fake.click("alice", plan.message_id, "request_changes", form)
        assert answer.status == 200 and answer.body["card"]["type"] == "raw"
        assert "Changes requested" in text(plan) and not button_values(plan.card)

        replanned = await env.next_review(root, after=plan)
        assert "checkout" in text(replanned)
        await fake.click("alice", replanned.message_id, "approve")

        gate = await env.next_review(root, after=replanned)
        assert "restart_service" in text(gate) and "exec" in text(gate)
        assert "Waiting on <at id=ou_bob></at>" in text(gate)

        # An outsider is refused (a toast; the card keeps its buttons; no decision stored)
        refused = await fake.click("mallory", gate.message_id, "approve")
        assert refused.status == 200 and refused.body["toast"]["type"] == "error"
        assert "Only @Bob can approve" in refused.body["toast"]["content"] and "card" not in refused.body
        record = await store.get_review(str(fake.button(gate.message_id, "approve")["review"]))
        assert record is not None and record.status == "pending"

        approved = await fake.click("bob", gate.message_id, "approve")
        assert approved.body["toast"]["type"] == "success"
        assert "approved by <at id=ou_bob></at>" in text(gate) and not button_values(gate.card)

        review = await env.next_review(root, after=gate)
        while "Result review" not in text(review):
            await fake.click("alice", review.message_id, "approve")
            review = await env.next_review(root, after=review)

        # A correction in the thread, read by the same reader as Slack's, then approve
        await fake.say("alice", OPS, "restart checkout instead of payments", root_id=root.message_id, mention_bot=False)
        await env.wait(lambda: any("Read as" in text(m) for m in env.bot_thread(root)))
        read_as = next(m for m in env.bot_thread(root) if "Read as" in text(m))
        assert [v["action"] for v in button_values(read_as.card)] == ["override"]
        review = await env.next_review(root, after=review)
        while "Result review" not in text(review):  # the new plan, its gate (bob's), the checks
            await fake.click("bob" if "ou_bob></at>" in text(review) else "alice", review.message_id, "approve")
            review = await env.next_review(root, after=review)
        assert "checkout" in text(review)
        await fake.click("alice", review.message_id, "approve")

        await env.wait(lambda: "Done" in text(root))
        await env.idle()
        assert "approved by <at id=ou_bob></at>" in text(root)
        runs = await store.list_runs()
        assert runs[0].status == "done" and runs[0].scope == OPS
        assert fake.connections == (1 if transport == "ws" else 0)
