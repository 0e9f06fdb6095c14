"""Three corrections, then a person takes over from the Feishu card: the 4th correction is the first
instruction, a new one replaces it, an unknown target is named, an instruction from the form, finish."""

from __future__ import annotations

from pathlib import Path

from tests.scenario.feishu_env import OPS, FEnv, running_feishu, text
from workspace.feishu_fake import Posted, button_values


def said(env: FEnv, root: Posted) -> str:
    return "\n".join(text(p) for p in env.bot_thread(root))


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
        first = await env.next_review(root, after=review)
        assert first.card["header"]["title"]["content"] == "Proposed step (takeover)"
        assert "restart_service" in text(first) and "notifications" in text(first)
        assert "“still not right, restart notifications” is the first instruction" in said(env, root)

        await fake.say("alice", OPS, "check disk usage on db-2", root_id=root.message_id, mention_bot=False)
        takeover = await env.next_review(root, after=first)
        assert takeover.card["header"]["title"]["content"] == "Human takeover"
        assert "There is no service `db-2`. Known: payments, checkout, search, auth, notifications." in text(takeover)
        assert "Replaced the proposed step 1 `restart_service` (service=notifications)" in said(env, root)
        assert [v["action"] for v in button_values(takeover.card)] == ["finish", "hand_back", "cancel", "instruct"]

        answer = await fake.click("alice", takeover.message_id, "instruct", {"text": "check payments"})
        assert answer.body["toast"]["type"] == "success"
        proposed = await env.next_review(root, after=takeover)
        assert "check_service" in text(proposed) and "payments" in text(proposed)
        await fake.click("alice", proposed.message_id, "approve")
        back = await env.next_review(root, after=proposed)
        await fake.click("alice", back.message_id, "finish")
        # only a check ran: the card names the task as corrected that was not done, never a plain "Done"
        await env.wait(
            lambda: "Partly done" in text(root) and "not done: restart notifications; check errors" in text(root)
        )
        assert "✅ Done" not in text(root)
        await env.wait(
            lambda: any(
                "Partly done — not done: restart notifications; check errors." in text(m) for m in env.bot_thread(root)
            )
        )
        runs = await env.bot.deps.store.list_runs()
        final = (await env.bot.deps.store.load(runs[0].id))[0]
        assert final.status == "done" and [(s.number, s.tool, s.status) for s in final.plan] == [
            (1, "check_service", "done")
        ]


async def test_feishu_mention_with_a_task_no_tool_can_do_ends_at_once_saying_what_it_can(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        await env.fake.say("alice", OPS, "order pizza")
        await env.wait(env.cards)
        root = env.cards()[0]
        await env.wait(lambda: "❌ Failed" in text(root))
        await env.wait(
            lambda: "No tool here can do “order pizza”. What I can do here: list services" in said(env, root)
        )
        assert env.reviews(root) == [], "nobody is asked"
        assert "List every service" not in said(env, root) + text(root)
        runs = await env.bot.deps.store.list_runs()
        assert [(r.status, r.pending_review) for r in runs] == [("failed", None)]
