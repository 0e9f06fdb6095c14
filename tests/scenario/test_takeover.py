"""Three corrections, then a person takes over in the thread and finishes the run."""

from __future__ import annotations

from pathlib import Path

from blocks import ids
from tests.scenario.harness import OPS, running, text_of


async def test_fourth_correction_hands_over_and_thread_replies_become_instructions(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        await env.ws.slash_command("alice", OPS, "restart payments and check errors after")
        await env.wait(env.cards)
        card = env.cards()[0]
        review = await env.next_review(card)
        corrections = ["restart checkout instead", "no, restart search instead", "wrong again, restart auth instead"]
        for text in corrections:
            await env.ws.reply_in_thread("alice", OPS, card.ts, text)
            review = await env.next_review(card, after=review)
            assert "takeover" not in text_of(review).lower()
        await env.ws.reply_in_thread("alice", OPS, card.ts, "still not right, restart notifications")
        takeover = await env.next_review(card, after=review)
        assert "3 corrections" in text_of(takeover)
        state = (await env.bot.deps.store.load((await env.bot.deps.store.list_runs())[0].id))[0]
        assert state.status == "human_takeover" and state.retries == 3

        # in takeover a reply is an instruction: one proposed step that still needs approval
        await env.ws.reply_in_thread("alice", OPS, card.ts, "check payments")
        proposed = await env.next_review(card, after=takeover)
        assert "check_service" in text_of(proposed) and "payments" in text_of(proposed)
        await env.click("alice", proposed, ids.APPROVE)
        back = await env.next_review(card, after=proposed)
        assert "payments" in text_of(back)

        await env.ws.reply_in_thread("alice", OPS, card.ts, "finish")
        # only a check ran: the card says what of the task was not done, never a plain "Done"
        await env.wait(lambda: "Partly done — not done: " in text_of(env.ws.state.message(OPS, card.ts)), within=10)
        assert "check errors" in text_of(env.ws.state.message(OPS, card.ts))
        await env.wait(lambda: any("✅ Partly done — not done: " in text_of(m) for m in env.thread(card)))
        assert not any(text_of(m).startswith("✅ Done") for m in env.thread(card))
        final = (await env.bot.deps.store.load(state.id))[0]
        assert final.status == "done"
        assert [s.tool for s in final.plan if s.status == "done"] == ["check_service"]
