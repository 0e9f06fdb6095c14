"""Three corrections, then a person takes over from the Feishu card: an instruction from its form, finish."""

from __future__ import annotations

from pathlib import Path

from tests.scenario.feishu_env import OPS, running_feishu, text
from workspace.feishu_fake import button_values


async def test_feishu_takeover_card_instructs_with_its_form_and_finishes_with_its_button(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        fake = env.fake
        await fake.say("alice", OPS, "restart payments and check errors after")
        await env.wait(env.cards)
        root = env.cards()[0]
        review = await env.next_review(root)
        for words in ["restart checkout instead", "no, restart search instead", "wrong again, restart auth instead"]:
            await fake.say("alice", OPS, words, root_id=root.message_id, mention_bot=False)
            review = await env.next_review(root, after=review)
        await fake.say(
            "alice", OPS, "still not right, restart notifications", root_id=root.message_id, mention_bot=False
        )
        takeover = await env.next_review(root, after=review)
        assert takeover.card["header"]["title"]["content"] == "Human takeover"
        assert [v["action"] for v in button_values(takeover.card)] == ["finish", "hand_back", "cancel", "instruct"]

        answer = await fake.click("alice", takeover.message_id, "instruct", {"text": "check payments"})
        assert answer.body["toast"]["type"] == "success"
        proposed = await env.next_review(root, after=takeover)
        assert "check_service" in text(proposed) and "payments" in text(proposed)
        await fake.click("alice", proposed.message_id, "approve")
        back = await env.next_review(root, after=proposed)
        await fake.click("alice", back.message_id, "finish")
        # only a check ran: the card says what of the task was not done, never a plain "Done"
        await env.wait(lambda: "Partly done — not done: " in text(root))
        assert "check errors" in text(root) and "✅ Done" not in text(root)
        await env.wait(lambda: any("✅ Partly done — not done: " in text(m) for m in env.bot_thread(root)))
        runs = await env.bot.deps.store.list_runs()
        final = (await env.bot.deps.store.load(runs[0].id))[0]
        assert final.status == "done" and [s.tool for s in final.plan if s.status == "done"] == ["check_service"]
