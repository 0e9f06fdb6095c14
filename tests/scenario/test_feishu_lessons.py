"""Lessons in Feishu: a thread reply corrects a step, the next plan card says what it used with a Forget
button; a click forgets it through the use case, says so in the run's thread and takes the button off the
card; ``lessons`` after the mention lists them, each with Forget."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.scenario.feishu_env import OPS, FEnv, running_feishu, text
from tests.scenario.harness import policy_file
from workspace.feishu_fake import button_values, card_text

TASK = "scale payments to 2 replicas"


def _told(env: FEnv, open_id: str) -> list[dict[str, Any]]:
    return [card for _, who, card in env.fake.ephemerals if who == open_id]


async def _taught(env: FEnv) -> str:
    """Alice corrects the gate of TASK to 4 replicas; the lesson's id."""
    fake = env.fake
    await fake.say("alice", OPS, TASK)
    await env.wait(env.cards)
    root = env.cards()[0]
    plan = await env.next_review(root)
    await fake.click("alice", plan.message_id, "approve")
    gate = await env.next_review(root, after=plan)
    await fake.say("alice", OPS, "use 4 replicas", root_id=root.message_id, mention_bot=False)
    await env.next_review(root, after=gate)
    [lesson] = await env.bot.deps.store.lessons(OPS)
    return lesson.id


async def test_feishu_forget_on_a_plan_card_answers_in_the_thread_and_retires_the_button(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        fake, store = env.fake, env.bot.deps.store
        lesson = await _taught(env)
        await fake.say("bob", OPS, TASK)
        await env.wait(lambda: len(env.cards()) == 2)
        second = env.cards()[-1]
        review = await env.next_review(second)
        assert "Using what <at id=ou_alice></at> said on" in text(review) and "replicas=4" in text(review)
        answer = await fake.click("bob", review.message_id, "forget_lesson", lesson=lesson)
        assert answer.body["toast"]["type"] == "success" and "Forgotten" in answer.body["toast"]["content"]
        assert await store.lessons(OPS) == []

        def told() -> bool:
            return any("forgot a lesson: use replicas=4" in text(m) for m in env.bot_thread(second))

        await env.wait(told)
        await env.wait(lambda: "Forgotten by <at id=ou_bob></at>" in text(fake.messages[review.message_id]))
        redrawn = fake.messages[review.message_id].card
        actions = [v.get("action") for v in button_values(redrawn)]
        assert "forget_lesson" not in actions and "approve" in actions  # still open for a decision
        again = await fake.click_value("bob", review.message_id, {"action": "forget_lesson", "lesson": lesson})
        assert again.body["toast"]["type"] == "error"


async def test_feishu_lessons_list_offers_forget_and_is_shown_again_without_it(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, config=policy_file(tmp_path, '[approvers]\ndeploy = ["ou_dave"]\n')) as env:
        fake, store = env.fake, env.bot.deps.store
        lesson = await _taught(env)
        await fake.say("carol", OPS, "lessons")
        await env.wait(lambda: any(lesson in json.dumps(c) for c in _told(env, "ou_carol")))
        listing = _told(env, "ou_carol")[-1]
        assert "use replicas=4 (not 2) in `scale_service` for payments" in card_text(listing)
        [value] = [v for v in button_values(listing) if v.get("action") == "forget_lesson"]
        shown_to_carol = list(fake.ephemeral_chats)[-1]

        refused = await fake.click_value("carol", shown_to_carol, value)  # not who taught it, not an approver
        assert refused.body["toast"]["type"] == "error" and len(await store.lessons(OPS)) == 1

        answer = await fake.click_value("alice", shown_to_carol, value)
        assert answer.body["toast"]["type"] == "success" and await store.lessons(OPS) == []
        shown = answer.body["card"]["data"]
        assert "replicas=4" not in card_text(shown) and "No lessons here yet" in card_text(shown)
