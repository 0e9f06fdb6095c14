"""Lessons in Feishu: a thread reply corrects a step, the next plan card says what it used with a Forget
button, the click forgets it through the use case, and ``lessons`` after the mention lists them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.scenario.feishu_env import OPS, FEnv, running_feishu, text

TASK = "scale payments to 2 replicas"


def _told(env: FEnv, open_id: str) -> list[str]:
    return [json.dumps(card, ensure_ascii=False) for _, who, card in env.fake.ephemerals if who == open_id]


async def test_feishu_plan_card_shows_the_lesson_and_forget_stops_it(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        fake, store = env.fake, env.bot.deps.store
        await fake.say("alice", OPS, TASK)
        await env.wait(env.cards)
        root = env.cards()[0]
        plan = await env.next_review(root)
        await fake.click("alice", plan.message_id, "approve")
        gate = await env.next_review(root, after=plan)
        await fake.say("alice", OPS, "use 4 replicas", root_id=root.message_id, mention_bot=False)
        await env.next_review(root, after=gate)
        [lesson] = await store.lessons(OPS)

        await fake.say("carol", OPS, "lessons")
        await env.wait(lambda: any(lesson.id in t and "replicas=4" in t for t in _told(env, "ou_carol")))

        await fake.say("bob", OPS, TASK)
        await env.wait(lambda: len(env.cards()) == 2)
        second = env.cards()[-1]
        review = await env.next_review(second)
        assert "Using what <at id=ou_alice></at> said on" in text(review) and "replicas=4" in text(review)
        answer = await fake.click("bob", review.message_id, "forget_lesson", lesson=lesson.id)
        assert answer.body["toast"]["type"] == "success" and "Forgotten" in answer.body["toast"]["content"]
        assert await store.lessons(OPS) == []
        again = await fake.click("bob", review.message_id, "forget_lesson", lesson=lesson.id)
        assert again.body["toast"]["type"] == "error"
