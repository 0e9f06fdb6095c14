"""A run card stays short (what ran, how it ended, who decided, the result in one line); the thread has the
detail: each decision on its review, and the result whole."""

from __future__ import annotations

from pathlib import Path

from blocks import ids
from tests.scenario.harness import Env, policy_file, running, text_of

TASK = "restart payments and check errors after"
HEADLINE = "Done: restarted payments and read the payments logs."
LOG_LINE = "Connection pool exhausted"  # from the result's quoted logs


async def finished(env: Env) -> str:
    await env.wait(lambda: "*Result:*" in text_of(env.cards()[0]))
    await env.idle()
    return text_of(env.cards()[0])


async def test_card_of_a_done_run_is_short_and_its_thread_has_the_detail(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card = await env.start(TASK)
        plan = await env.next_review(card)
        await env.click("alice", plan, ids.APPROVE)
        result = await env.next_review(card, after=plan)
        await env.click("alice", result, ids.APPROVE)
        shown = await finished(env)

        assert f"*Result:* {HEADLINE}" in shown
        assert "Decided by <@U0ALICE> · 2 decisions, each in the thread" in shown
        assert "`restart_service`" in shown and "`read_logs`" in shown  # what ran
        assert LOG_LINE not in shown and "Plan approved by" not in shown
        thread = [text_of(m) for m in env.thread(card)]
        assert any("Plan approved by <@U0ALICE>" in t for t in thread)
        assert any("Result approved by <@U0ALICE>" in t and LOG_LINE in t for t in thread)
        assert LOG_LINE not in thread[-1]  # the result review showed it whole: the last post does not repeat it


async def test_run_without_a_result_review_ends_its_thread_with_the_result_whole(tmp_path: Path) -> None:
    policy = policy_file(tmp_path, '[anchors]\nstop = ["after_plan"]\n')
    async with running(tmp_path, config=policy) as env:
        card = await env.start(TASK)
        plan = await env.next_review(card)
        await env.click("alice", plan, ids.APPROVE)
        shown = await finished(env)

        assert f"*Result:* {HEADLINE}" in shown and LOG_LINE not in shown
        last = env.thread(card)[-1]
        assert "✅ Done" in text_of(last) and HEADLINE in text_of(last) and LOG_LINE in text_of(last)
        # streamed as it was written (in pieces), then closed with the outcome, Show details and the votes
        calls = [c.method for c in env.ws.state.calls if c.ok and "Stream" in c.method]
        assert calls[0] == "chat.startStream" and calls[-1] == "chat.stopStream" and "chat.appendStream" in calls
        assert not last.streaming and last.blocks[0]["type"] == "markdown"
        assert ids.RESULT_FEEDBACK in str(last.blocks) and last.metadata is not None


async def test_result_whose_stream_the_api_refuses_is_posted_whole_once(tmp_path: Path) -> None:
    policy = policy_file(tmp_path, '[anchors]\nstop = ["after_plan"]\n')
    async with running(tmp_path, config=policy) as env:
        env.ws.state.fail_next("chat.startStream", "unknown_method", status=200, retry_after=None)
        card = await env.start(TASK)
        plan = await env.next_review(card)
        await env.click("alice", plan, ids.APPROVE)
        await finished(env)

        results = [m for m in env.thread(card) if LOG_LINE in text_of(m)]
        assert len(results) == 1 and "✅ Done" in text_of(results[0])
        assert [c.method for c in env.ws.state.calls if "Stream" in c.method] == ["chat.startStream"]
