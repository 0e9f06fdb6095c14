"""Words after the mention (help, list, status, cancel, rules), DMs, and Chinese wording, in Feishu."""

from __future__ import annotations

import json
from pathlib import Path

from tests.scenario.feishu_env import OPS, FEnv, running_feishu, text
from workspace.feishu_fake import button_values


def _told(env: FEnv, open_id: str) -> list[str]:
    return [json.dumps(card, ensure_ascii=False) for _, who, card in env.fake.ephemerals if who == open_id]


async def test_feishu_words_after_the_mention_list_status_cancel_rules_help(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        fake = env.fake
        await fake.say("alice", OPS, "restart payments and check errors after")
        await env.wait(env.cards)
        root = env.cards()[0]
        await env.next_review(root)
        run_id = (await env.bot.deps.store.list_runs())[0].id

        for words, expect in [
            ("help", "Mention the bot with a task"),
            ("list", run_id),
            (f"status {run_id[:6]}", "awaiting review"),
            ("rules", "No always-allow rules here"),
            ("status", "Say which run"),
            ("status nope", "No run `nope`"),
        ]:
            await fake.say("carol", OPS, words)
            await env.wait(lambda expect=expect: any(expect in t for t in _told(env, "ou_carol")))  # type: ignore[misc]
        assert len(env.cards()) == 1, "no word started a run"

        await fake.say("mallory", OPS, f"cancel {run_id}")
        await env.wait(lambda: any("Nothing changed" in t for t in _told(env, "ou_mallory")))
        await fake.say("alice", OPS, f"cancel {run_id}")
        await env.wait(lambda: any("cancelled" in t for t in _told(env, "ou_alice")))
        await env.wait(lambda: "Cancelled" in text(root))
        assert (await env.bot.deps.store.list_runs())[0].status == "cancelled"


async def test_feishu_list_marks_the_runs_waiting_on_the_asker_as_slack_does(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        await env.fake.say("alice", OPS, "restart payments and check errors after")
        await env.wait(env.cards)
        await env.next_review(env.cards()[0])
        run_id = (await env.bot.deps.store.list_runs())[0].id
        for person in ("alice", "carol"):
            await env.fake.say(person, OPS, "list")
            await env.wait(lambda p=person: any(run_id in t for t in _told(env, f"ou_{p}")))  # type: ignore[misc]
        assert any("waits on you" in t for t in _told(env, "ou_alice")), "its plan waits on its requester"
        assert not any("waits on you" in t for t in _told(env, "ou_carol"))


async def test_feishu_group_message_without_the_bot_mentioned_is_ignored(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        await env.fake.say("alice", OPS, "restart payments", mention_bot=False)
        await env.fake.say("alice", "oc_dm_alice", "help", mention_bot=False, chat_type="p2p")
        await env.wait(
            lambda: any(m.chat_id == "oc_dm_alice" and m.sender == "ou_tandembot" for m in env.fake.messages.values())
        )
        await env.idle()
        assert await env.bot.deps.store.list_runs() == [] and env.cards() == []


async def test_feishu_chinese_task_gets_chinese_cards(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        await env.fake.say("alice", OPS, "重启 payments 服务，然后检查错误")
        await env.wait(env.cards)
        root = env.cards()[0]
        plan = await env.next_review(root)
        assert plan.card["header"]["title"]["content"] == "计划审核" and "批准" in text(plan)
        await env.fake.click("alice", plan.message_id, "approve")
        await env.wait(lambda: "计划已批准" in text(plan) and "Plan approved" not in text(plan))


async def test_feishu_unclear_reply_asks_and_its_answer_decides_the_plan(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        fake = env.fake
        await fake.say("alice", OPS, "restart payments and check errors after")
        await env.wait(env.cards)
        root = env.cards()[0]
        plan = await env.next_review(root)
        await fake.say("alice", OPS, "hmm", root_id=root.message_id, mention_bot=False)
        await env.wait(lambda: any("Not sure what you meant" in text(m) for m in env.bot_thread(root)))
        question = next(m for m in env.bot_thread(root) if "Not sure what you meant" in text(m))
        assert "approve" in [v["action"] for v in button_values(plan.card)], "nothing was applied"
        answer = await fake.click("alice", question.message_id, "clarify", intent="approve")
        assert answer.body["toast"]["type"] == "success" and "card" not in answer.body, "the question is not the plan"
        await env.wait(lambda: "Plan approved by <at id=ou_alice></at>" in text(plan))
        assert not button_values(plan.card)
