"""A reply that only says "stop" cancels the run, whatever it is doing: waiting for a review, taken over, or
working on a step (where no review is open to read it against); on Slack and on Feishu."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.scenario.feishu_env import OPS as FEISHU_OPS
from tests.scenario.feishu_env import running_feishu, text
from tests.scenario.harness import OPS, running, text_of


async def started(folder: Path) -> None:
    """Until the held tool has started (it writes its call down first)."""
    for _ in range(400):
        if (folder / "calls.log").exists():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the tool never started")


@pytest.mark.parametrize("words", ["just cancel this", "取消吧"])
async def test_slack_stop_reply_while_a_step_runs_cancels_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, words: str
) -> None:
    monkeypatch.setenv("HELD_TOOLS_DIR", str(tmp_path))
    (tmp_path / "hold").touch()  # the step stays running until the test lets it go
    try:
        async with running(tmp_path, tools="tests.cli.held_tools") as env:
            card = await env.start("inspect cluster blue")
            store = env.bot.deps.store
            await started(tmp_path)
            run_id = (await store.list_runs())[0].id
            assert (await store.load(run_id))[0].pending is None, "working, nothing waits for a decision"
            await env.ws.reply_in_thread("alice", OPS, card.ts, words)
            await env.wait(lambda: "Cancelled" in text_of(env.ws.state.message(OPS, card.ts)))
            assert (await store.load(run_id))[0].status == "cancelled"
            assert not env.ws.state.ephemerals_for("U0ALICE"), "no “nothing is waiting” answer"
            (tmp_path / "hold").unlink()
    finally:
        (tmp_path / "hold").unlink(missing_ok=True)


@pytest.mark.parametrize("words", ["just cancel this", "取消吧"])
async def test_slack_stop_reply_at_a_review_and_in_a_takeover_cancels_the_run(tmp_path: Path, words: str) -> None:
    async with running(tmp_path) as env:
        card = await env.start("restart payments and check errors after")
        review = await env.next_review(card)
        await env.ws.reply_in_thread("alice", OPS, card.ts, words)
        await env.wait(lambda: "Cancelled" in text_of(env.ws.state.message(OPS, card.ts)))

        taken = await env.start("restart payments and check errors after")
        review = await env.next_review(taken)
        for said in [
            "restart checkout instead",
            "no, restart search instead",
            "wrong, restart auth instead",
            "still not right, restart notifications",
            "restart nope",
        ]:
            await env.ws.reply_in_thread("alice", OPS, taken.ts, said)
            review = await env.next_review(taken, after=review)
        assert "There is no service `nope`" in text_of(review)
        await env.ws.reply_in_thread("alice", OPS, taken.ts, words)
        await env.wait(lambda: "Cancelled" in text_of(env.ws.state.message(OPS, taken.ts)))
        statuses = {r.status for r in await env.bot.deps.store.list_runs()}
        assert statuses == {"cancelled"}


async def test_feishu_stop_reply_while_a_step_runs_cancels_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HELD_TOOLS_DIR", str(tmp_path))
    (tmp_path / "hold").touch()
    try:
        async with running_feishu(tmp_path, tools="tests.cli.held_tools") as env:
            await env.fake.say("alice", FEISHU_OPS, "inspect cluster blue")
            await env.wait(env.cards)
            root = env.cards()[0]
            await started(tmp_path)
            await env.fake.say("alice", FEISHU_OPS, "取消吧", root_id=root.message_id, mention_bot=False)
            await env.wait(lambda: "Cancelled" in text(root) or "已取消" in text(root))
            runs = await env.bot.deps.store.list_runs()
            assert [r.status for r in runs] == ["cancelled"]
            (tmp_path / "hold").unlink()
    finally:
        (tmp_path / "hold").unlink(missing_ok=True)
