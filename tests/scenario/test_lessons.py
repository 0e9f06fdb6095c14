"""Lessons in Slack, over signed HTTP through the real Bolt app: a thread reply corrects a step, the next
plan in the channel uses what it taught and says so, and its Forget button stops it."""

from __future__ import annotations

from pathlib import Path

from blocks import ids
from tests.scenario.harness import (
    OPS,
    THREE_ANCHORS,
    Env,
    button_value,
    buttons_of,
    gate_of,
    policy_file,
    running,
    text_of,
)
from workspace.models import Message

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
        assert "Using what <@U0ALICE> said on" in shown and "`replicas=4`" in shown and "replicas=4 (not 2)" in shown
        assert lesson.id in button_value(plan, ids.FORGET_LESSON)

        await env.click("bob", plan, ids.FORGET_LESSON)  # the requester of a run that used it
        await env.wait(lambda: any("forgot a lesson" in text_of(m) for m in env.thread(second)))
        told = next(m for m in env.thread(second) if "forgot a lesson" in text_of(m))
        assert "<@U0BOB> forgot a lesson: use replicas=4" in text_of(told)
        assert env.ws.state.ephemerals_for("U0BOB") == []  # answered in the run's thread, not beside it
        assert await store.lessons(OPS) == []

        def redrawn() -> Message | None:
            now = next(m for m in env.thread(second) if m.ts == plan.ts)
            return now if "Forgotten by <@U0BOB>" in text_of(now) else None

        await env.wait(redrawn)
        review = redrawn()
        assert review is not None and ids.FORGET_LESSON not in [b.get("action_id") for b in buttons_of(review)]
        assert ids.APPROVE in [b.get("action_id") for b in buttons_of(review)]  # still open for a decision
        await env.wait(lambda: "Forgotten by <@U0BOB>" in text_of(env.cards()[-1]))

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
        assert "Lessons in this channel" in text and "use replicas=4 (not 2) in `scale_service` for payments" in text
        await env.ws.click("alice", OPS, listing.ts, ids.FORGET_LESSON, button_value(listing, ids.FORGET_LESSON))  # type: ignore[arg-type]
        await env.idle()
        assert await env.bot.deps.store.lessons(OPS) == []
        shown = [e for e in env.ws.state.ephemerals_for("U0ALICE") if e.ts == listing.ts]  # the list, in place
        assert len(shown) == 1 and "Forgotten:" in text_of(shown[0]) and "None yet" in text_of(shown[0])  # type: ignore[arg-type]
        assert ids.FORGET_LESSON not in [b.get("action_id") for b in buttons_of(shown[0])]  # type: ignore[arg-type]


async def test_plan_correction_then_table_wish_in_one_run_keep_both_lessons(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card = await env.start("restart payments and read its logs")
        plan = await env.next_review(card)
        await env.ws.reply_in_thread("alice", OPS, card.ts, "read the logs first")
        replanned = await env.next_review(card, after=plan)
        assert text_of(replanned).index("read_logs") < text_of(replanned).index("restart_service")
        await env.click("alice", replanned, ids.APPROVE)  # approves the restart it shows too: no gate of its own
        result = await env.next_review(card, after=replanned)
        assert "Result ready for review" in text_of(result)
        run = (await env.bot.deps.store.load((await env.bot.deps.store.list_runs())[0].id))[0]
        assert [(s.tool, s.status, s.approved_by is not None) for s in run.plan if s.tool == "restart_service"] == [
            ("restart_service", "done", True)
        ]
        await env.ws.reply_in_thread("alice", OPS, card.ts, "show it as a table")
        await env.next_review(card, after=result)
        lines = sorted(x.line for x in await env.bot.deps.store.lessons(OPS))
        assert lines == ["present the result: “show it as a table”", "run `read_logs` before `restart_service`"]

        second = await env.start("restart checkout and read its logs", "bob")
        review = text_of(await env.next_review(second))
        assert review.index("read_logs") < review.index("restart_service")  # the move was learned
        assert "run `read_logs` before `restart_service`" in review and "show it as a table" not in review


async def test_task_saying_error_logs_keeps_level_error_and_lists_no_lesson(tmp_path: Path) -> None:
    async with running(tmp_path) as env:

        def voted(card: Message, times: int = 1) -> bool:
            return sum(ids.RESULT_FEEDBACK in str(m.blocks) for m in env.thread(card)) == times

        def card_of(card: Message) -> str:
            return text_of(env.ws.state.message(OPS, card.ts))

        card = await env.start("read payments logs")
        await env.wait(lambda: voted(card))  # read-only: no review, delivered as done
        await env.ws.reply_in_thread("alice", OPS, card.ts, "use level warning")  # reopens it
        await env.wait(lambda: voted(card, 2))
        [lesson] = await env.bot.deps.store.lessons(OPS)
        assert lesson.after == {"level": "warning"}

        errors = await env.start("read payments error logs", "bob")
        await env.wait(lambda: voted(errors))
        await env.idle()
        assert "level=error" in card_of(errors) and "level=warning" not in card_of(errors)
        assert "Using what" not in card_of(errors) + "".join(text_of(m) for m in env.thread(errors))
        assert env.reviews(errors) == []

        again = await env.start("read payments logs", "bob")
        await env.wait(lambda: voted(again))
        await env.idle()
        assert env.reviews(again) == [], "no review to show it on"
        # the run card, which is what the user sees of a read-only run, says which lesson shaped it
        assert "level=warning" in card_of(again) and "Using what <@U0ALICE> said on" in card_of(again)
