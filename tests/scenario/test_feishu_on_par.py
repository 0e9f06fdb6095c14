"""Feishu on par with Slack, through the real webhook and the local Feishu: toasts in words, cards that stay
true once a run is done."""

from __future__ import annotations

import time
from pathlib import Path

from tests.scenario.feishu_env import OPS, running_feishu, text
from tests.scenario.harness import policy_file, running
from workspace.feishu_fake import button_values, card_text

DAY = 86_400.0
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


async def test_feishu_review_waiting_13_days_moves_to_a_fresh_card_that_still_decides(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        root, plan = await env.plan_of("restart payments and check errors after")
        runtime, delivery = env.bot.deps.runtime, env.bot.deps.delivery
        later = time.time() + 13.5 * DAY  # a day before Feishu stops taking clicks on the plan's card
        runtime.clock = delivery.clock = lambda: later
        await runtime.tick()
        await runtime.tick()  # a second look in the same period posts nothing more
        fresh = await env.next_review(root, after=plan)
        await env.idle()
        assert [m.message_id for m in env.reviews(root)] == [fresh.message_id], "one live card, the fresh one"
        assert "Moved: a card can be used for 14 days" in text(plan) and button_values(plan.card) == []
        assert "restart_service" in text(fresh) and "Plan review" in text(fresh)

        runtime.clock = delivery.clock = lambda: later + 2 * 3600
        await runtime.tick()
        await env.idle()
        assert env.reviews(root)[-1].message_id == fresh.message_id, "no third card within the period"

        answer = await env.fake.click("alice", fresh.message_id, "approve")
        assert answer.body["toast"]["type"] == "success" and "approved by @Alice" in answer.body["toast"]["content"]
        await env.wait(lambda: "Plan approved" in text(root))


async def test_feishu_review_younger_than_its_cards_lifetime_keeps_its_card(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        root, plan = await env.plan_of("restart payments and check errors after")
        runtime, delivery = env.bot.deps.runtime, env.bot.deps.delivery
        runtime.clock = delivery.clock = lambda: time.time() + 12 * DAY
        await runtime.tick()
        await env.idle()
        assert [m.message_id for m in env.reviews(root)] == [plan.message_id] and "Moved" not in text(plan)


async def test_feishu_chinese_requester_gets_chinese_cards_decisions_and_status(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, config=policy_file(tmp_path, POLICY)) as env:
        root, plan = await env.plan_of("重启 payments 服务，然后检查错误日志")
        assert "此计划也会批准第 1 步" in text(plan) and "Approved by" not in text(plan)
        await env.fake.click("alice", plan.message_id, "approve")
        gate = await env.next_review(root, after=plan)
        await env.wait(lambda: "批准第 1 步" in text(root))
        assert "✅ 计划已批准 · <at id=ou_alice></at>" in text(root) and "Plan approved" not in text(root)
        assert "第 1 步，共 2 步" in text(gate)
        refused = await env.fake.click("mallory", gate.message_id, "approve")
        assert refused.body["toast"] == {"type": "error", "content": "只有 @Bob 可以批准 exec 步骤。未做任何更改。"}

        await env.fake.click("bob", gate.message_id, "approve")
        assert "✅ 第 1 步已批准 · <at id=ou_bob></at>" in text(gate)


async def test_feishu_chinese_words_after_the_mention_answer_in_chinese(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        root, _ = await env.plan_of("重启 payments 服务，然后检查错误日志")
        run_id = (await env.bot.deps.store.list_runs())[0].id

        def told() -> list[str]:
            return [card_text(card) for _, who, card in env.fake.ephemerals if who == "ou_carol"]

        for words, expect in [("帮助", "按步骤执行任务"), ("列表", run_id), (f"状态 {run_id[:6]}", "✋ 等待审核")]:
            await env.fake.say("carol", OPS, words)
            await env.wait(lambda expect=expect: any(expect in t for t in told()))  # type: ignore[misc]
        assert len(env.cards()) == 1, "no word started a run"
        await env.fake.say("alice", OPS, f"取消 {run_id}")
        await env.wait(lambda: "已取消" in text(root))


async def test_slack_review_waiting_13_days_keeps_its_message_as_slack_messages_do_not_go_stale(
    tmp_path: Path,
) -> None:
    async with running(tmp_path) as env:
        card = await env.start("restart payments and check errors after")
        await env.next_review(card)
        runtime = env.bot.deps.runtime
        runtime.clock = lambda: time.time() + 13.5 * DAY
        await runtime.tick()
        [run] = await env.bot.deps.store.list_runs()
        assert run.status == "awaiting_review"
        assert "fresh_card" not in [e.kind for e in await env.bot.deps.store.events(run.id)]
