"""``tandem serve`` killed (SIGKILL) while an MCP server's question waits for people: the answers given before
the kill are kept, the question is still there after the restart, and the tool takes effect once."""

from __future__ import annotations

import signal
from pathlib import Path

from blocks import ids
from tests.mcpservers.servers import calls, eliciting_toml
from tests.scenario.harness import OPS, button_value, policy_file, text_of
from tests.scenario.processes import bot_process
from workspace import Workspace, run_workspace
from workspace.models import Message


def open_review(ws: Workspace) -> Message | None:
    history = ws.state.history(OPS)
    if not history:
        return None
    return next((m for m in reversed(ws.state.thread(OPS, history[0].ts)) if "tandem.cancel" in str(m.blocks)), None)


async def next_question(ws: Workspace, after: str = "") -> Message:
    """The run's next question (posted after ``after``), approving what comes before it."""
    while True:
        await ws.wait_until(lambda _s, after=after: getattr(open_review(ws), "ts", "") > after, within=30)
        review = open_review(ws)
        assert review is not None
        if "needs an answer" in text_of(review):
            return review
        await ws.click("alice", OPS, review.ts, ids.APPROVE, button_value(review, ids.APPROVE))
        after = review.ts


async def test_killed_while_an_mcp_question_waits_keeps_it_and_moves_the_service_once(tmp_path: Path) -> None:
    log = tmp_path / "ops.log"
    config = {"TANDEM_CONFIG": policy_file(tmp_path, eliciting_toml("deploys", log, trust="trusted"))}
    db = tmp_path / "tandem.db"
    async with run_workspace() as ws:
        async with bot_process(ws, db, **config) as first:
            await ws.slash_command("alice", OPS, "move service web")
            region = await next_question(ws)
            await ws.click("alice", OPS, region.ts, f"{ids.ANSWER}.1", button_value(region, f"{ids.ANSWER}.1"))
            replicas = await next_question(ws, after=region.ts)
            assert "Replicas" in text_of(replicas)
            first.send_signal(signal.SIGKILL)  # dies with the second field asked and unanswered
            await first.wait()
        assert "move" not in calls(log)

        async with bot_process(ws, db, **config):
            card = ws.state.history(OPS)[0]
            await ws.reply_in_thread("alice", OPS, card.ts, "5")
            drain = await next_question(ws, after=replicas.ts)
            assert "Drain first" in text_of(drain)
            await ws.click("alice", OPS, drain.ts, ids.ANSWER, button_value(drain, ids.ANSWER))  # yes
            moved = "web moved to us-east-1 with 5 replicas, drained first"
            await ws.wait_until(lambda s: any(moved in text_of(m) for m in s.thread(OPS, card.ts)), within=30)
            assert [c for c in calls(log) if c != "asked"] == ["move", "web", "us-east-1", "5", "true"]
