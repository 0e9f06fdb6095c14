"""A review card Feishu refuses (too long, a card it cannot take) still reaches the people: a shorter card,
then a text message that says how to answer, answered by a reply in the thread."""

from __future__ import annotations

from pathlib import Path

from tests.scenario.feishu_env import OPS, running_feishu, text
from workspace.feishu_fake import button_values

TOO_LONG = ("/reply", 400, 230025)  # Feishu's "message content is too long", once


async def test_feishu_plan_card_refused_arrives_as_a_shorter_card_and_is_approved_from_it(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        env.fake.failures.append(TOO_LONG)
        root, plan = await env.plan_of("restart payments and check errors after")
        assert "Shortened" in text(plan) and "restart_service" in text(plan)
        assert {"approve", "cancel", "request_changes"} <= {str(v.get("action")) for v in button_values(plan.card)}
        assert env.fake.failures == [], "the full card was refused first"
        await env.fake.click("alice", plan.message_id, "approve")
        await env.wait(lambda: "approved by" in text(plan) and not button_values(plan.card))
        await env.next_review(root, after=plan)  # the run went on from the shorter card


async def test_feishu_plan_refused_as_every_card_arrives_as_text_that_says_how_to_answer(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        env.fake.failures += [TOO_LONG, TOO_LONG]
        await env.fake.say("alice", OPS, "restart payments and check errors after")
        await env.wait(env.cards)
        root = env.cards()[0]

        def as_text() -> list[str]:
            return [m.text for m in env.bot_thread(root) if "could not be shown as a card" in m.text]

        await env.wait(as_text)
        [said] = as_text()
        run_id = (await env.bot.deps.store.list_runs())[0].id
        assert "restart_service" in said and f"tandem answer {run_id} --review" in said
        assert "reply in this thread: approve" in said
        assert env.reviews(root) == []


async def test_feishu_plan_sent_as_text_is_approved_by_a_reply_in_the_thread_and_the_run_goes_on(
    tmp_path: Path,
) -> None:
    async with running_feishu(tmp_path) as env:
        env.fake.failures += [TOO_LONG, TOO_LONG]
        await env.fake.say("alice", OPS, "restart payments and check errors after")
        await env.wait(env.cards)
        root = env.cards()[0]
        await env.wait(lambda: any("could not be shown as a card" in m.text for m in env.bot_thread(root)))
        assert env.reviews(root) == [] and "Plan approved" not in text(root)

        await env.fake.say("alice", OPS, "approve", root_id=root.message_id, mention_bot=False)

        await env.wait(lambda: "Plan approved by <at id=ou_alice></at>" in text(root))  # on the run card
        assert any("Read as: **Approve**" in text(m) for m in env.bot_thread(root))
        gate = await env.next_review(root)  # the run went on to its next review, a card again
        assert "Approval needed before a risky step" in text(gate) and "restart_service" in text(gate)
