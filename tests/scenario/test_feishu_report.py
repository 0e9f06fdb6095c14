"""``report`` after the mention: this chat's collaboration report, privately, in the asker's language."""

from __future__ import annotations

import json
from pathlib import Path

from tests.scenario.feishu_env import OPS, FEnv, running_feishu
from workspace.feishu_fake import card_text


def _told(env: FEnv, open_id: str) -> list[str]:
    return [card_text(card) for _, who, card in env.fake.ephemerals if who == open_id]


async def test_feishu_report_counts_this_chats_corrected_run_in_english_and_chinese(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        fake = env.fake
        await fake.say("alice", OPS, "restart payments and check errors after")
        await env.wait(env.cards)
        root = env.cards()[0]
        plan = await env.next_review(root)
        form = {"feedback": "restart checkout, not payments", "intent": "replan"}
        await fake.click("alice", plan.message_id, "request_changes", form)
        await env.next_review(root, after=plan)

        await fake.say("carol", OPS, "report")
        await env.wait(lambda: any("Tandem report" in t for t in _told(env, "ou_carol")))
        english = next(t for t in _told(env, "ou_carol") if "Tandem report" in t)
        assert "**Runs:** 1 (previous period 0)" in english
        assert "**Corrected runs:** 1 · 100%" in english and "replan 1" in english

        await fake.say("alice", OPS, "报告 30d")
        await env.wait(lambda: any("协作报告" in t for t in _told(env, "ou_alice")))
        chinese = next(t for t in _told(env, "ou_alice") if "协作报告" in t)
        assert "**运行：** 1" in chinese and "修改计划 1" in chinese

        await fake.say("bob", "oc_elsewhere", "report")
        await env.wait(lambda: any("Tandem report" in t for t in _told(env, "ou_bob")))
        assert "**Runs:** 0" in next(t for t in _told(env, "ou_bob") if "Tandem report" in t)

        await fake.say("bob", OPS, "report soon")
        await env.wait(lambda: any("Try `report 7d`" in t for t in _told(env, "ou_bob")))
        assert len(env.cards()) == 1, "no word started a run"
        assert all(json.dumps(c).count('"tag": "button"') == 0 for _, _, c in fake.ephemerals)
