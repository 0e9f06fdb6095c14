"""Work that can wait yields to requests being answered: a click's work starts once no other request is open."""

from __future__ import annotations

from pathlib import Path

from blocks import ids
from tests.scenario.harness import THREE_ANCHORS, policy_file, running, text_of


async def test_a_clicks_work_waits_while_another_request_is_answered_then_goes_ahead(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, THREE_ANCHORS)) as env:
        card = await env.start("check errors on payments, then restart payments")
        plan = await env.next_review(card)
        review_id = plan.blocks[-1]["elements"][0]["value"]
        acks = env.bot.deps.acks
        acks.patience = 60.0
        acks.opened()  # another request is being answered (a slow one, or one of a burst)
        try:
            waited = acks.waited
            answer = await env.click("alice", plan, ids.APPROVE)
            assert answer.status == 200, "the click itself is answered at once"
            await env.wait(lambda: acks.waited > waited)  # the click's work is waiting for the other request
            record = await env.bot.deps.store.get_review(review_id)
            assert record is not None and record.status == "pending", "nothing was decided while it waited"
        finally:
            acks.closed()
        gate = await env.next_review(card, after=plan)
        assert "needs approval" in text_of(gate)
        record = await env.bot.deps.store.get_review(review_id)
        assert record is not None and (record.status, record.answered_by) == ("answered", "U0ALICE")
