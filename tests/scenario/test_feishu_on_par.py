"""Feishu on par with Slack, through the real webhook and the local Feishu: toasts in words, cards that stay
true once a run is done."""

from __future__ import annotations

from pathlib import Path

from tests.scenario.feishu_env import OPS, running_feishu, text
from tests.scenario.harness import policy_file
from workspace.feishu_fake import button_values

POLICY = '[approvers]\nexec = ["ou_bob"]\n'


async def test_feishu_approval_after_a_refusal_toasts_what_was_decided_in_words(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, config=policy_file(tmp_path, POLICY)) as env:
        _, gate = await env.exec_gate("restart payments and check errors after")
        refused = await env.fake.click("mallory", gate.message_id, "approve")
        assert refused.body["toast"]["type"] == "error" and "Only @Bob can approve" in refused.body["toast"]["content"]

        approved = await env.fake.click("bob", gate.message_id, "approve")
        said = approved.body["toast"]
        assert said["type"] == "success" and "approved by @Bob" in said["content"], said


async def test_feishu_read_as_says_which_step_changes_and_loses_its_form_once_the_run_is_done(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        root, plan = await env.plan_of("restart payments and check errors after")
        await env.fake.say(
            "alice", OPS, "use level warning instead of error", root_id=root.message_id, mention_bot=False
        )
        review = await env.next_review(root, after=plan)
        read_as = next(m for m in env.bot_thread(root) if "Read as" in text(m))
        assert "Read as: **Change step 2 before it runs**" in text(read_as), text(read_as)
        assert [v["action"] for v in button_values(read_as.card)] == ["override"]

        while "Result review" not in text(review):
            await env.fake.click("alice", review.message_id, "approve")
            review = await env.next_review(root, after=review)
        await env.fake.click("alice", review.message_id, "approve")
        await env.wait(lambda: "Done" in text(root))
        await env.idle()
        assert button_values(read_as.card) == [], "Not what I meant is offered on a finished run"
        assert "The run has ended: nothing waits for a correction." in text(read_as)
