"""Feishu on par with Slack, through the real webhook and the local Feishu: toasts in words, cards that stay
true once a run is done."""

from __future__ import annotations

from pathlib import Path

from tests.scenario.feishu_env import running_feishu
from tests.scenario.harness import policy_file

POLICY = '[approvers]\nexec = ["ou_bob"]\n'


async def test_feishu_approval_after_a_refusal_toasts_what_was_decided_in_words(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, config=policy_file(tmp_path, POLICY)) as env:
        _, gate = await env.exec_gate("restart payments and check errors after")
        refused = await env.fake.click("mallory", gate.message_id, "approve")
        assert refused.body["toast"]["type"] == "error" and "Only @Bob can approve" in refused.body["toast"]["content"]

        approved = await env.fake.click("bob", gate.message_id, "approve")
        said = approved.body["toast"]
        assert said["type"] == "success" and "approved by @Bob" in said["content"], said
