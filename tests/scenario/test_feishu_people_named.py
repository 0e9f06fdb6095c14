"""People in Feishu answers: a refusal's toast (plain text, no mentions) names them as the card does, by name."""

from __future__ import annotations

from pathlib import Path

from tests.scenario.feishu_env import running_feishu, text
from tests.scenario.harness import policy_file

POLICY = '[approvers]\nexec = ["ou_bob"]\n'


async def test_feishu_refusal_toast_names_the_approver_by_name_not_open_id(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, config=policy_file(tmp_path, POLICY)) as env:
        _, gate = await env.exec_gate("restart payments and check errors after")
        assert "<at id=ou_bob></at>" in text(gate), "the card mentions bob (Feishu draws his name)"
        refused = await env.fake.click("carol", gate.message_id, "approve")
        toast = refused.body["toast"]
        assert toast["type"] == "error" and "Only @Bob can approve exec steps" in toast["content"], toast
        assert "ou_bob" not in toast["content"]
