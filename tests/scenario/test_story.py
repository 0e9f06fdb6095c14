"""The whole story in Slack, through the real HTTP app and signed requests."""

from __future__ import annotations

from pathlib import Path

from blocks import ids
from blocks.result_feedback import vote_value
from tests.scenario.harness import OPS, THREE_ANCHORS, button_value, policy_file, running, text_of


async def test_story_plan_changes_replan_risky_approval_result_done(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, THREE_ANCHORS)) as env:
        reply = await env.ws.slash_command("alice", OPS, "restart payments and check errors after")
        assert reply.status == 200
        await env.wait(env.cards)
        card = env.cards()[0]

        plan = await env.next_review(card)
        assert "restart_service" in text_of(plan) and "payments" in text_of(plan)
        run_id = (await env.bot.deps.store.list_runs())[0].id
        assert plan.metadata is not None and plan.metadata["event_type"] == "tandem_review"
        about = plan.metadata["event_payload"]
        assert (about["run"], about["anchor"], about["step"]) == (run_id, "after_plan", None)
        assert about["review"] == button_value(plan, ids.APPROVE), "the message says which review it asks"

        # Request changes → modal → replan with feedback
        await env.click("alice", plan, ids.REJECT)
        await env.wait(lambda: bool(env.ws.state.open_modals("U0ALICE")))  # opened once the review is read
        modal = env.ws.state.open_modals("U0ALICE")[-1]
        await env.ws.submit_view(
            "alice", modal.id, {ids.INTENT_BLOCK: "replan", ids.FEEDBACK_BLOCK: "restart checkout, not payments"}
        )
        replanned = await env.next_review(card, after=plan)
        assert "checkout" in text_of(replanned)
        assert "Changes requested" in text_of(env.ws.state.message(OPS, plan.ts))
        assert not env.reviews(card)[:-1], "answered reviews lose their buttons"

        # approve the plan → the risky step asks first
        await env.click("alice", replanned, ids.APPROVE)
        gate = await env.next_review(card, after=replanned)
        assert "restart_service" in text_of(gate) and "exec" in text_of(gate).lower()

        await env.click("alice", gate, ids.APPROVE)
        review = await env.next_review(card, after=gate)
        while ids.APPROVE in str(review.blocks) and "Result" not in text_of(review):
            await env.click("alice", review, ids.APPROVE)
            review = await env.next_review(card, after=review)
        assert "read_logs" in text_of(review) or "checkout" in text_of(review)

        await env.click("alice", review, ids.APPROVE)
        await env.wait(lambda: "Done" in text_of(env.ws.state.message(OPS, card.ts)))
        await env.idle()
        final_card = text_of(env.ws.state.message(OPS, card.ts))
        assert "Decided by <@U0ALICE>" in final_card
        runs = await env.bot.deps.store.list_runs()
        assert runs[0].status == "done"

        # 👍/👎 under the result: one vote per person is recorded (Slack sends every click), the latest counts
        await env.wait(lambda: any(ids.RESULT_FEEDBACK in str(m.blocks) for m in env.thread(card)))
        done = next(m for m in env.thread(card) if ids.RESULT_FEEDBACK in str(m.blocks))
        up, down = vote_value(runs[0].id, "up"), vote_value(runs[0].id, "down")
        for value in (up, up, down):
            await env.ws.click("bob", OPS, done.ts, ids.RESULT_FEEDBACK, value)
        await env.wait(lambda: len(env.ws.state.ephemerals_for("U0BOB")) >= 3)
        votes = [e for e in await env.bot.deps.store.events(runs[0].id) if e.kind == "result_feedback"]
        assert [(e.actor, e.payload["vote"]) for e in votes] == [("U0BOB", "up"), ("U0BOB", "down")]
        assert (await env.bot.deps.store.load(runs[0].id))[0].status == "done", "a vote changes nothing"


async def test_task_no_tool_can_do_ends_at_once_saying_what_it_can_and_waits_on_nobody(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        await env.ws.slash_command("alice", OPS, "order pizza")
        await env.wait(env.cards)
        card = env.cards()[0]
        await env.wait(lambda: "Failed" in text_of(env.ws.state.message(OPS, card.ts)))
        await env.idle()
        shown = text_of(env.ws.state.message(OPS, card.ts)) + "\n".join(text_of(m) for m in env.thread(card))
        assert "No tool here can do “order pizza”. What I can do here: list services, check service" in shown
        assert "List every service" not in shown, "a line or two, not the tools' docstrings"
        assert env.reviews(card) == [], "no review, nobody asked"
        runs = await env.bot.deps.store.list_runs()
        assert [r.status for r in runs] == ["failed"] and runs[0].pending_review is None
        # a real ops task still plans
        ops = await env.start("restart payments and check errors after")
        plan = await env.next_review(ops)
        assert "restart_service" in text_of(plan)
