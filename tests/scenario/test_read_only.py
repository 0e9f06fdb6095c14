"""A run that changed nothing is delivered as done, with 👍/👎 and no review; its thread stays open."""

from __future__ import annotations

from pathlib import Path

from blocks import ids
from tests.scenario.harness import OPS, Env, running, text_of
from workspace.models import Message

CHECK = "check checkout health"


def _card(env: Env, card: Message) -> str:
    return text_of(env.ws.state.message(OPS, card.ts))


def _votes(env: Env, card: Message) -> list[Message]:
    return [m for m in env.thread(card) if ids.RESULT_FEEDBACK in str(m.blocks)]


async def _done_check(env: Env) -> Message:
    card = await env.start(CHECK)
    await env.wait(lambda: len(_votes(env, card)) == 1)
    await env.idle()
    return card


async def test_read_only_check_posts_no_review_and_is_done_with_votes(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card = await _done_check(env)
        assert env.reviews(card) == [], "nobody was asked anything"
        assert not any("needs a decision" in text_of(m) for m in env.thread(card))
        assert "Done" in _card(env, card) and "check_service" in _card(env, card)
        state, _ = await env.bot.deps.store.load(await _run_id(env, card))
        assert state.status == "done"


async def _run_id(env: Env, card: Message) -> str:
    run_id = await env.bot.deps.store.run_for_thread(f"{OPS}:{card.ts}")
    assert run_id is not None
    return run_id


async def test_presentation_wish_in_a_done_thread_refines_the_result(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card = await _done_check(env)
        run_id = await _run_id(env, card)
        before, _ = await env.bot.deps.store.load(run_id)
        await env.ws.reply_in_thread("alice", OPS, card.ts, "show it as a table")
        await env.wait(lambda: len(_votes(env, card)) == 2)
        await env.idle()
        after, _ = await env.bot.deps.store.load(run_id)
        assert after.status == "done" and after.output != before.output and "|" in (after.output or "")
        assert [s.attempts for s in after.plan] == [s.attempts for s in before.plan], "nothing ran again"
        assert any("Reopened by" in text_of(m) and "show it as a table" in text_of(m) for m in env.thread(card))
        assert "Done" in _card(env, card) and "*Result:*" in _card(env, card)
        assert "Decided by <@U0ALICE>" in _card(env, card), "the card names who reopened it; the thread says why"
        last = env.thread(card)[-1]  # the thread ends with the new result, whole
        assert "✅ Done" in text_of(last) and any(b.get("type") == "table" for b in last.blocks)
        assert env.reviews(card) == []


async def test_correction_in_a_done_thread_reopens_and_replans(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card = await _done_check(env)
        run_id = await _run_id(env, card)
        await env.ws.reply_in_thread("alice", OPS, card.ts, "wrong service, check auth instead")
        await env.wait(lambda: len(_votes(env, card)) == 2)
        await env.idle()
        state, _ = await env.bot.deps.store.load(run_id)
        assert state.status == "done" and state.retries == 1
        assert {s.params.get("service") for s in state.plan} == {"auth"}
        assert any("Reopened by" in text_of(m) for m in env.thread(card))
        events = [e.kind for e in await env.bot.deps.store.events(run_id)]
        assert events.count("reopened") == 1 and events.count("finished") == 2


async def test_outsider_reply_in_a_done_thread_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card = await _done_check(env)
        run_id = await _run_id(env, card)
        before = await env.bot.deps.store.load(run_id)
        trail = await env.bot.deps.store.events(run_id)
        await env.ws.reply_in_thread("carol", OPS, card.ts, "wrong service, check auth instead")
        await env.ws.wait_until(lambda s: any("Only" in m.text for m in s.ephemerals_for("U0CAROL")), within=10)
        await env.idle()
        assert await env.bot.deps.store.load(run_id) == before
        assert await env.bot.deps.store.events(run_id) == trail, "nothing is written"
        assert len(_votes(env, card)) == 1 and not any("Reopened" in text_of(m) for m in env.thread(card))


async def test_thanks_in_a_done_thread_changes_nothing(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card = await _done_check(env)
        run_id = await _run_id(env, card)
        before = await env.bot.deps.store.load(run_id)
        await env.ws.reply_in_thread("alice", OPS, card.ts, "thanks, looks good")
        await env.ws.wait_until(lambda s: any("changes nothing" in m.text for m in s.ephemerals_for("U0ALICE")))
        await env.idle()
        assert await env.bot.deps.store.load(run_id) == before
        assert len(_votes(env, card)) == 1
