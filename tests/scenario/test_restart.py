"""The bot process is killed between posting a review and the click; a new process takes the click."""

from __future__ import annotations

import signal
from pathlib import Path

from blocks import ids
from tests.agent.waiting import eventually
from tests.scenario.harness import OPS, button_value, text_of
from tests.scenario.processes import bot_process
from workspace import run_workspace
from workspace.models import Message


async def test_click_after_bot_restart_resumes_the_run(tmp_path: Path) -> None:
    db = tmp_path / "tandem.db"
    async with run_workspace() as ws:
        async with bot_process(ws, db) as first:
            await ws.slash_command("alice", OPS, "restart payments and check errors after")

            def review() -> object:
                return next((m for m in ws.state.history(OPS) if m.bot_id), None) and [
                    m for m in ws.state.thread(OPS, ws.state.history(OPS)[0].ts) if "tandem.approve" in str(m.blocks)
                ]

            await ws.wait_until(lambda _s: bool(review()), within=20)
            card = ws.state.history(OPS)[0]
            plan = [m for m in ws.state.thread(OPS, card.ts) if "tandem.approve" in str(m.blocks)][-1]
            first.send_signal(signal.SIGKILL)  # dies with the review posted and unanswered
            await first.wait()

        async with bot_process(ws, db):
            # the restarted bot applies the same rule: alice decides everything here, so her approval of the
            # plan (which showed the restart's exact params) approves the restart too, and the result is next
            await ws.click("alice", OPS, plan.ts, ids.APPROVE, button_value(plan, ids.APPROVE))

            def result_posted() -> bool:
                msgs = ws.state.thread(OPS, card.ts)
                return any("Result ready for review" in text_of(m) and "tandem.approve" in str(m.blocks) for m in msgs)

            await ws.wait_until(lambda _s: result_posted(), within=20)
            told = "<@U0ALICE> approved step 1 (`restart_service`) with the plan"
            assert any(told in text_of(m) for m in ws.state.thread(OPS, card.ts))
            assert not any("needs approval" in text_of(m) for m in ws.state.thread(OPS, card.ts))
            decided = "Plan approved by <@U0ALICE>"
            await ws.wait_until(lambda s: decided in text_of(s.message(OPS, plan.ts)), within=10)
            await ws.wait_until(lambda s: "Decided by <@U0ALICE>" in text_of(s.message(OPS, card.ts)), within=10)


async def test_tool_question_survives_a_restart_and_the_answer_resumes_the_tool(tmp_path: Path) -> None:
    db = tmp_path / "tandem.db"
    extra = {"TANDEM_TOOLS": "tests.agent.handoff_tools", "HANDOFF_TOOLS_DIR": str(tmp_path)}
    async with run_workspace() as ws:

        def open_review() -> Message | None:
            history = ws.state.history(OPS)
            if not history:
                return None
            thread = ws.state.thread(OPS, history[0].ts)
            return next((m for m in reversed(thread) if "tandem.cancel" in str(m.blocks)), None)

        async with bot_process(ws, db, **extra) as first:
            await ws.slash_command("alice", OPS, "move service payments")
            while True:
                await ws.wait_until(lambda _s: open_review() is not None, within=20)
                review = open_review()
                assert review is not None
                if "needs an answer" in text_of(review):
                    break
                await ws.click("alice", OPS, review.ts, ids.APPROVE, button_value(review, ids.APPROVE))
                seen = review.ts
                await ws.wait_until(lambda _s, ts=seen: getattr(open_review(), "ts", ts) != ts, within=20)
            first.send_signal(signal.SIGKILL)
            await first.wait()
        assert not (tmp_path / "moves.log").exists()

        async with bot_process(ws, db, **extra):
            answer = button_value(review, f"{ids.ANSWER}.1")
            await ws.click("alice", OPS, review.ts, f"{ids.ANSWER}.1", answer)
            await eventually((tmp_path / "moves.log").exists, "the step to write its file", 20)
            assert (tmp_path / "moves.log").read_text().split() == ["payments->us-east-1"]
            await ws.wait_until(lambda s: "Answered by <@U0ALICE>" in text_of(s.message(OPS, review.ts)), within=10)
