"""Three corrections, then a person takes over in the thread: the 4th correction is the first instruction."""

from __future__ import annotations

from pathlib import Path

from blocks import ids
from tests.scenario.harness import OPS, Env, running, text_of
from workspace.state import Message


def lines(env: Env, card: Message) -> str:
    return "\n".join(text_of(m) for m in env.thread(card))


async def test_fourth_correction_is_the_first_takeover_step_and_thread_replies_steer(tmp_path: Path) -> None:
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
        proposed = await env.next_review(card, after=review)
        # the 4th correction is not lost: it is the first proposed step, which waits for its approval
        assert "proposed step 1" in text_of(proposed)
        assert "restart_service" in text_of(proposed) and "notifications" in text_of(proposed)
        said = lines(env, card)
        assert "applied 3 corrections" in said and "“still not right, restart notifications” is the first" in said
        store = env.bot.deps.store
        state = (await store.load((await store.list_runs())[0].id))[0]
        assert state.status == "human_takeover" and state.retries == 3
        assert state.plan[0].status == "pending" and state.plan[0].approved_by is None, "not run unapproved"

        # a new instruction before that one is decided replaces it, visibly
        await env.ws.reply_in_thread("alice", OPS, card.ts, "check payments")
        replaced = await env.next_review(card, after=proposed)
        assert "check_service" in text_of(replaced) and "proposed step 1" in text_of(replaced)
        await env.wait(lambda: "Replaced the proposed step 1 `restart_service`" in lines(env, card))
        notes = [e.payload["text"] for e in await store.events(state.id) if e.kind == "notify"]
        assert any(
            n.startswith("Replaced the proposed step 1 `restart_service` (service=notifications)") for n in notes
        )

        await env.click("alice", replaced, ids.APPROVE)
        back = await env.next_review(card, after=replaced)
        assert "payments" in text_of(back) and "check service payments" in text_of(back), "an example it can do"

        # a target the tools do not know is named, never replaced by the run's earlier one
        await env.ws.reply_in_thread("alice", OPS, card.ts, "check disk usage on db-2")
        refused = await env.next_review(card, after=back)
        assert "There is no service `db-2`. Known: payments, checkout, search, auth, notifications." in text_of(refused)

        await env.ws.reply_in_thread("alice", OPS, card.ts, "finish")
        # only a check ran: the card names the task as corrected that was not done, never a plain "Done"
        card_text = lambda: text_of(env.ws.state.message(OPS, card.ts))  # noqa: E731
        await env.wait(
            lambda: "Partly done" in card_text() and "not done: restart notifications; check errors" in card_text(),
            within=10,
        )
        await env.wait(
            lambda: any(
                "Partly done — not done: restart notifications; check errors." in text_of(m) for m in env.thread(card)
            )
        )
        assert not any("✅ Done" in text_of(m) for m in env.thread(card))
        final = (await store.load(state.id))[0]
        assert final.status == "done"
        assert [(s.number, s.tool, s.status) for s in final.plan] == [(1, "check_service", "done")]


async def test_takeover_finished_with_a_failed_step_says_so_the_same_way_everywhere(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card = await env.start("restart payments and check errors after")
        review = await env.next_review(card)
        for text in ["restart checkout instead", "no, restart search instead", "wrong again, restart auth instead"]:
            await env.ws.reply_in_thread("alice", OPS, card.ts, text)
            review = await env.next_review(card, after=review)
        await env.ws.reply_in_thread("alice", OPS, card.ts, "still not right, check payments")
        proposed = await env.next_review(card, after=review)
        await env.click("alice", proposed, ids.APPROVE)
        back = await env.next_review(card, after=proposed)
        await env.ws.reply_in_thread("alice", OPS, card.ts, "roll back notifications")  # it has no earlier version
        gated = await env.next_review(card, after=back)
        assert "proposed step 2" in text_of(gated) and "rollback_service" in text_of(gated)
        await env.click("alice", gated, ids.APPROVE)
        failed = await env.next_review(card, after=gated)
        assert "Step 2 (`rollback_service`) failed" in text_of(failed)
        await env.ws.reply_in_thread("alice", OPS, card.ts, "finish")

        word = "Finished with problems"
        await env.wait(lambda: f"⚠️ {word}: 1 of 2 steps failed." in lines(env, card))
        await env.idle()
        assert f"⚠️ {word}* · 1 of 2 steps failed" in text_of(env.ws.state.message(OPS, card.ts)), "the card"
        assert "✅ Done" not in text_of(env.ws.state.message(OPS, card.ts)) + lines(env, card)
        store = env.bot.deps.store
        state = (await store.load((await store.list_runs())[0].id))[0]
        assert (state.output or "").startswith(f"**{word}: "), "the result's own heading"
        event = {"type": "app_home_opened", "user": "U0ALICE", "channel": "D0X", "tab": "home", "event_ts": "1.2"}
        assert (await env.ws.deliver(event)).status == 200
        await env.idle()
        home = env.ws.state.home_view("U0ALICE")
        rows = [
            line
            for line in str(home.spec if home else "").split("\\n")
            if "|restart payments and check errors after>" in line
        ]
        assert rows and all(
            row.startswith("⚠️ *<") and f"|restart payments and check errors after>* · {word.lower()} ·" in row
            for row in rows
        ), rows
