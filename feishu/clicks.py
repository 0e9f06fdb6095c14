"""Card callbacks (``card.action.trigger``): answered within Feishu's 3 s with the updated card inline.

A click becomes one use-case call (the same ones Slack's buttons make), started in the
app's background. The answer waits at most :data:`ANSWER_WITHIN` seconds for the call's
decision to be committed (not for the model or tools that follow it): then it returns the
decided card, or a toast saying why nothing changed. Past that, it says Tandem is on it,
and the outbox updates the card when the decision lands.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any

from pydantic import ValidationError

from agent.decision_lines import record_line
from agent.logs import ctx
from agent.models import Approve, Cancel, Correct, Decision, Finish, HandBack
from agent.usecases import INTENTS, Answered, Applied, Asked, LessonForgotten, NotApplied, Outcome
from agent.votes import Voted, vote
from feishu import messages
from feishu.channel import card_data, review_key
from feishu.deps import FeishuDeps
from feishu.elements import decided
from feishu.events import said
from feishu.lessons import lessons_card
from feishu.lines import line_text
from feishu.payloads import CardCallback, Click
from feishu.wording import Lang, lang_of, mentioned, plain

log = logging.getLogger("tandem.feishu")

ANSWER_WITHIN = 2.0
"""Seconds a callback waits for its decision before answering anyway (Feishu allows 3)."""


def toast(kind: str, text: str) -> dict[str, Any]:
    return {"toast": {"type": kind, "content": text[:500]}}


async def told(deps: FeishuDeps, outcome: Outcome | LessonForgotten, lang: Lang = "en") -> str:
    """What a toast says of an outcome: its people by name, as the card's mentions show them."""
    said_so = said(outcome, lang)
    return plain(said_so, await deps.directory.names(mentioned(said_so)))


async def on_click(deps: FeishuDeps, callback: CardCallback) -> dict[str, Any]:
    """The callback's answer: always a body (an empty one makes Feishu show an error). A callback delivered
    twice is answered with a toast before it gets here (:func:`feishu.dispatch.answer`)."""
    action = callback.event.action
    try:
        click = Click.model_validate(action.value)
    except ValidationError:
        return toast("error", messages.NOT_A_TANDEM_BUTTON)
    user = callback.event.operator.open_id
    if click.action == "forget_lesson":  # about a lesson, not a decision on the review
        chat = callback.event.context.open_chat_id
        outcome = await deps.usecases.forget_lesson(click.lesson, user, chat, run_id=click.run or None)
        answer = toast("success" if isinstance(outcome, LessonForgotten) else "error", await told(deps, outcome))
        if isinstance(outcome, LessonForgotten) and not click.run:  # the lessons list: shown again without it
            listed = lessons_card(await deps.usecases.lessons(chat), lang_of(outcome.lesson.text))
            return {**answer, "card": card_data(listed)}
        return answer  # a run's card: its thread says so and its cards are drawn again (from the outbox)
    if click.action == "vote":  # about the result of a finished run, not a decision
        voted = await vote(deps.store, deps.clock(), click.run, click.vote, user)
        if isinstance(voted, Voted):
            return toast("success", messages.VOTED[voted.vote])
        return toast("error", messages.NOT_A_TANDEM_BUTTON if voted.why == "malformed" else messages.VOTE_UNKNOWN_RUN)
    record = await deps.store.get_review(click.review)
    if record is None:
        return toast("error", messages.UNKNOWN_REVIEW)
    form = action.form_value or {}
    work = _work(deps, click, record.run_id, record.step, user, form)
    if isinstance(work, str):
        return toast("error", work)
    state, _ = await deps.store.load(record.run_id)
    return await settle(deps, click.review, user, work, callback.event.context.open_message_id, lang_of(state.task))


def _text(form: dict[str, Any], name: str) -> str:
    value = form.get(name)
    return " ".join(str(value).split()) if value is not None else ""


def _work(
    deps: FeishuDeps, click: Click, run_id: str, step: int | None, user: str, form: dict[str, Any]
) -> Awaitable[Outcome] | str:
    """The use-case call a click makes, or what is wrong with the click."""
    usecases, review = deps.usecases, click.review
    decision: Decision
    match click.action:
        case "approve":
            return usecases.approve(review, user)
        case "approve_always":
            return usecases.approve_always(review, user)
        case "cancel":
            return usecases.decide(review, Cancel(reason=""), user)
        case "finish":
            return usecases.decide(review, Finish(), user)
        case "hand_back":
            return usecases.decide(review, HandBack(), user)
        case "answer":
            return usecases.answer(review, click.answer, user)
        case "decline":
            return usecases.decline(review, user)
        case "answer_text":
            text = _text(form, "text")
            return usecases.answer(review, text, user) if text else messages.EMPTY_ANSWER
        case "instruct":
            text = _text(form, "text")
            return usecases.say(run_id, text, user, review_id=review) if text else messages.EMPTY_FEEDBACK
        case "request_changes" | "override":
            feedback, intent = _text(form, "feedback"), _text(form, "intent") or "auto"
            if not feedback:
                return messages.EMPTY_FEEDBACK
            chosen = next((i for i in INTENTS if i == intent), None)
            if click.action == "override":  # "not what I meant": applies to whatever the run waits for now
                return usecases.override(review, feedback, user, chosen)
            if chosen is not None:
                return usecases.decide(review, Correct(intent=chosen, target_step=step, feedback=feedback), user)
            # A request for changes never approves ("looks good, but…" is asked about, with no Approve).
            return usecases.say(run_id, feedback, user, review_id=review, rejecting=True)
        case "forget_lesson" | "vote":  # answered in on_click
            return messages.NOT_A_TANDEM_BUTTON
        case "clarify":
            text = click.text
            if click.intent == "approve":
                decision = Approve()
            elif click.intent == "cancel":
                decision = Cancel(reason=text)
            elif click.intent in INTENTS:
                decision = Correct(intent=click.intent, feedback=text, target_step=click.step)
            else:
                return messages.NOT_A_TANDEM_BUTTON
            return usecases.decide(review, decision, user)


async def settle(
    deps: FeishuDeps, review_id: str, user: str, work: Awaitable[Outcome], clicked: str, lang: Lang = "en"
) -> dict[str, Any]:
    """Start ``work`` in the background; answer with what it did if that is known within the time.
    ``clicked`` is the message clicked on: only the review's own card is replaced by the answer."""
    committed = deps.channel.expect(review_id, user)
    outcome: asyncio.Future[Outcome] = asyncio.get_running_loop().create_future()

    async def run() -> None:
        try:
            result = await work
        except Exception as exc:  # told to the person, and logged for operators
            log.error("a card click failed: %s", exc, exc_info=exc, extra=ctx(review=review_id, user=user))
            result = NotApplied(f"{type(exc).__name__}: {exc}")
        if not outcome.done():
            outcome.set_result(result)

    deps.background.spawn(run(), name="feishu:click")
    try:
        waiting: set[asyncio.Future[Any]] = {committed, outcome}
        done, _ = await asyncio.wait(waiting, timeout=ANSWER_WITHIN, return_when=asyncio.FIRST_COMPLETED)
    finally:
        deps.channel.forget(review_id, user)
    if outcome in done:
        result = outcome.result()
        if not isinstance(result, Applied | Asked | Answered):
            return toast("error", await told(deps, result, lang))
        if isinstance(result, Asked):
            return toast("info", messages.ASKED)
        if isinstance(result, Answered):
            return toast("info", messages.ANSWERED)
    elif committed not in done:
        return toast("info", messages.WORKING)
    return await _decided_answer(deps, review_id, clicked)


async def _decided_answer(deps: FeishuDeps, review_id: str, clicked: str) -> dict[str, Any]:
    """The review's card as it is now: decided (no buttons), or still open with the approvals so far.
    A click on another card (a clarify question, "not what I meant") gets a toast; the outbox updates the rest."""
    record = await deps.store.get_review(review_id)
    posted = await deps.store.message(review_key(review_id))
    if record is None or posted is None or posted.ts != clicked or not posted.blocks:
        return toast("success", messages.APPLIED)
    if record.status == "pending":  # an approval below the quorum: the card shows it and stays open
        state, _ = await deps.store.load(record.run_id)
        if state.pending is not None and state.pending.id == review_id:
            more = messages.MORE_NEEDED.format(n=state.pending.quorum - len(state.pending.approvals))
            return {**toast("success", more), "card": card_data(deps.channel.review_card(state, state.pending))}
        return toast("success", messages.WORKING)
    state, _ = await deps.store.load(record.run_id)
    line = line_text(record_line(record), lang_of(state.task))  # the toast says what the card now says, in words
    shown = plain(line, await deps.directory.names(mentioned(line)))
    return {**toast("success", shown), "card": card_data(decided(posted.blocks[0], line))}
