"""Lessons in Slack, over signed HTTP through the real Bolt app: a thread reply corrects a step, the next
plan in the channel uses what it taught and says so, and its Forget button stops it."""

from __future__ import annotations

from pathlib import Path

from blocks import ids
from tests.scenario.harness import OPS, THREE_ANCHORS, Env, button_value, gate_of, policy_file, running, text_of

TASK = "scale payments to 2 replicas"


async def plan_of(env: Env, user: str) -> str:
    """Start TASK as ``user``; the text of its plan review."""
    count = len(env.cards())
    await env.ws.slash_command(user, OPS, TASK)
    await env.wait(lambda: len(env.cards()) == count + 1)
    return text_of(await env.next_review(env.cards()[-1]))


async def test_thread_correction_teaches_the_next_plan_and_forget_stops_it(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, THREE_ANCHORS)) as env:
        store = env.bot.deps.store
        card, gate = await gate_of(env, TASK)
        await env.ws.reply_in_thread("alice", OPS, card.ts, "use 4 replicas")
        await env.next_review(card, after=gate)
        [lesson] = await store.lessons(OPS)
        assert (lesson.after, lesson.by) == ({"replicas": 4}, "U0ALICE")

        await env.ws.slash_command("bob", OPS, TASK)
        await env.wait(lambda: len(env.cards()) == 2)
        second = env.cards()[-1]
        plan = await env.next_review(second)
        shown = text_of(plan)
        assert "Using what <@U0ALICE> said on" in shown and "`replicas=4`" in shown
        assert lesson.id in button_value(plan, ids.FORGET_LESSON)

        await env.click("bob", plan, ids.FORGET_LESSON)  # the requester of a run that used it
        await env.idle()
        told = env.ws.state.ephemerals_for("U0BOB")[-1]
        assert "Forgotten:" in text_of(told)  # type: ignore[arg-type]
        assert await store.lessons(OPS) == []

        third = await plan_of(env, "bob")
        assert "Using what" not in third and "`replicas=2`" in third


async def test_slash_lessons_lists_them_with_forget(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, THREE_ANCHORS)) as env:
        card, gate = await gate_of(env, TASK)
        await env.ws.reply_in_thread("alice", OPS, card.ts, "use 4 replicas")
        await env.next_review(card, after=gate)
        await env.ws.slash_command("alice", OPS, "lessons")
        await env.idle()
        listing = env.ws.state.ephemerals_for("U0ALICE")[-1]
        text = text_of(listing)  # type: ignore[arg-type]
        assert "Lessons in this channel" in text and "use replicas=4 in `scale_service` for payments" in text
        await env.ws.click("alice", OPS, listing.ts, ids.FORGET_LESSON, button_value(listing, ids.FORGET_LESSON))  # type: ignore[arg-type]
        await env.idle()
        assert "Forgotten:" in text_of(env.ws.state.ephemerals_for("U0ALICE")[-1])  # type: ignore[arg-type]
        assert await env.bot.deps.store.lessons(OPS) == []
