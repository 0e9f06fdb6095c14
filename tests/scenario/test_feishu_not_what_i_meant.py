"""*Not what I meant* from a Feishu card: audited like Slack's, so the report counts the misread; an outsider's
form is refused and counted nowhere."""

from __future__ import annotations

from pathlib import Path

from tests.scenario.feishu_env import OPS, FEnv, running_feishu, text
from workspace.feishu_fake import card_text


def _told(env: FEnv, open_id: str) -> list[str]:
    return [card_text(card) for _, who, card in env.fake.ephemerals if who == open_id]


async def _report(env: FEnv, person: str) -> str:
    """``person`` asks for this chat's report; the report they are shown."""
    count = len(_told(env, f"ou_{person}"))
    await env.fake.say(person, OPS, "report")
    await env.wait(lambda: any("Tandem report" in t for t in _told(env, f"ou_{person}")[count:]))
    return next(t for t in _told(env, f"ou_{person}")[count:] if "Tandem report" in t)


async def test_feishu_not_what_i_meant_is_counted_as_a_misread_and_refused_to_an_outsider(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        fake = env.fake
        root, plan = await env.plan_of("restart payments and check errors after")
        await fake.say("alice", OPS, "restart checkout instead of payments", root_id=root.message_id, mention_bot=False)
        await env.wait(lambda: any("Read as" in text(m) for m in env.bot_thread(root)))
        read_as = next(m for m in env.bot_thread(root) if "Read as" in text(m))
        replanned = await env.next_review(root, after=plan)
        form = {"feedback": "restart auth", "intent": "replan"}

        # Mallory may not steer Alice's run: refused, and nothing of hers is counted
        refused = await fake.click("mallory", read_as.message_id, "override", form)
        assert refused.body["toast"]["type"] == "error"
        assert "Only @Alice can steer or stop this run. Nothing changed." in refused.body["toast"]["content"]
        assert "**Replies misread:** 0 of 1 (0%)" in await _report(env, "carol")

        # Alice's own "not what I meant" applies to what waits now, and the report counts the misread
        await fake.click("alice", read_as.message_id, "override", form)
        again = await env.next_review(root, after=replanned)
        assert "auth" in text(again)
        assert "**Replies misread:** 1 of 1 (100%)" in await _report(env, "carol")
