"""A review Slack refuses for its size or shape still reaches the people: shorter, then as text.
Only when every form is refused do the run card and the escalation channel say so."""

from __future__ import annotations

from pathlib import Path

from blocks import ids
from blocks.shorter import SHORTENED
from tests.scenario.harness import OPS, Env, buttons_of, policy_file, running, text_of
from workspace.models import Message

TASK = "restart payments and check errors after"
REVIEW = "tandem_review"  # the metadata every form of a review's post carries


def refuse_plan(env: Env, error: str = "msg_too_long", times: int = 1) -> None:
    for _ in range(times):
        env.ws.state.fail_next("chat.postMessage", error, status=200, retry_after=None, containing=REVIEW)


def plan_posts(env: Env) -> list[tuple[bool, str | None]]:
    return [(c.ok, c.error) for c in env.ws.state.calls_to("chat.postMessage") if REVIEW in str(c.params)]


async def test_plan_review_refused_as_too_long_arrives_shortened_and_is_approved_from_it(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        refuse_plan(env)
        card = await env.start(TASK)
        plan = await env.next_review(card)
        assert SHORTENED in text_of(plan)
        assert "restart_service" in text_of(plan), "the short form names the plan's steps"
        choices = {b.get("action_id") for b in buttons_of(plan)}
        assert {ids.APPROVE, ids.REJECT, ids.CANCEL, ids.DETAILS} <= choices
        assert plan_posts(env) == [(False, "msg_too_long"), (True, None)]
        await env.click("alice", plan, ids.APPROVE)
        await env.wait(lambda: "Plan approved by <@U0ALICE>" in text_of(env.ws.state.message(OPS, plan.ts)))
        await env.next_review(card, after=plan)  # the run went on from the shortened review


async def test_plan_review_refused_in_full_and_short_arrives_as_text_that_says_how_to_answer(
    tmp_path: Path,
) -> None:
    async with running(tmp_path) as env:
        refuse_plan(env, "invalid_blocks", times=2)
        card = await env.start(TASK)

        def as_text() -> Message | None:
            found = [m for m in env.thread(card) if "could not be shown with its buttons" in m.text]
            return found[0] if found else None

        await env.wait(as_text)
        posted = as_text()
        assert posted is not None and not buttons_of(posted)
        assert "restart_service" in posted.text and "reply in this thread: *approve*" in posted.text
        run_id = (await env.bot.deps.store.list_runs())[0].id
        assert f"`tandem answer {run_id} --review" in posted.text
        # a reply in the thread answers it
        await env.ws.reply_in_thread("alice", OPS, card.ts, "approve")
        await env.wait(lambda: "Plan approved by <@U0ALICE>" in text_of(env.ws.state.message(OPS, posted.ts)))


async def test_plan_review_refused_in_every_form_shows_on_the_card_and_in_the_escalation_channel(
    tmp_path: Path,
) -> None:
    config = policy_file(tmp_path, 'escalation_channel = "C0GENERAL"\n')
    async with running(tmp_path, config=config) as env:
        refuse_plan(env, times=3)  # full, short, then text: every form is refused
        card = await env.start(TASK)
        await env.wait(
            lambda: "could not be delivered (refused in every form" in text_of(env.ws.state.message(OPS, card.ts))
        )
        await env.wait(
            lambda: any("could not deliver a message" in text_of(m) for m in env.ws.state.history("C0GENERAL"))
        )
        assert env.reviews(card) == []
        run_id = (await env.bot.deps.store.list_runs())[0].id
        [failed] = [d for d in await env.bot.deps.store.undelivered(run_id) if d.message.kind == "review"]
        assert failed.status == "failed" and "text: msg_too_long" in (failed.error or "")
