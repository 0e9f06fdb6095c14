"""A thread reply that only asks something is answered in the thread, and the review stays pending
(the real Bolt app over signed HTTP, against the local Slack fake)."""

from __future__ import annotations

from pathlib import Path

import pytest

from blocks import ids
from tests.scenario.harness import OPS, THREE_ANCHORS, policy_file, running, text_of


@pytest.mark.parametrize("question", ["why restart it?", "为什么要重启？"])
async def test_thread_question_at_a_gate_is_answered_and_the_gate_still_waits(tmp_path: Path, question: str) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, THREE_ANCHORS)) as env:  # the gate apart
        card = await env.start("restart payments and check errors after")
        plan = await env.next_review(card)
        await env.click("alice", plan, ids.APPROVE)
        gate = await env.next_review(card, after=plan)

        await env.ws.reply_in_thread("alice", OPS, card.ts, question)

        await env.wait(lambda: any("asked:" in text_of(m) for m in env.thread(card)))
        answer = next(text_of(m) for m in env.thread(card) if "asked:" in text_of(m))
        assert "Step 1 `restart_service` service=payments" in answer and "It has not run yet." in answer
        await env.idle()
        assert not any("Read as" in text_of(m) for m in env.thread(card)), "a question is not read as a decision"
        assert ids.APPROVE in str(env.ws.state.message(OPS, gate.ts).blocks), "the gate still waits"
        open_review = env.open_review(card)
        assert open_review is not None and open_review.ts == gate.ts, "no other review was opened"
