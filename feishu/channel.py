"""The Feishu channel: renders and delivers the outbox rows of runs that live in a Feishu chat.

Like Slack's (``bot/channel.py``): a transition writes what people should see into the
outbox in its own transaction, and the delivery worker hands each row here, which reads
the run as it is by then. Every post carries a ``uuid`` made from the row, so a resend
after an uncertain attempt is one message in the chat, not two (Feishu keeps one message
per ``uuid`` for an hour).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any, assert_never

from agent.card_first import wait_for_card
from agent.card_pace import CardPace
from agent.card_view import run_card_view
from agent.config import PolicyConfig
from agent.delivery import DeliveryFailed, DeliveryWorker, closing_of, review_of
from agent.logs import ctx
from agent.models import Decided, Delivery, Form, Review, RunState
from agent.models import outbox as out
from agent.outcome import outcome
from agent.policy import SafetyPolicy
from agent.ports import Change, Store
from agent.review_view import review_view
from feishu import zh
from feishu.api import FeishuApi, FeishuError
from feishu.cards import clarify_card, finished_card, line_card, review_card, run_card
from feishu.elements import Card, decided
from feishu.fresh import repost
from feishu.lines import line_text
from feishu.opening import post_card, tell_not_started
from feishu.origin import FEISHU, FeishuChat
from feishu.read_as import close_read_as, post_read_as
from feishu.shorter import review_text, short_card
from feishu.wording import escape, lang_of, prose, say, who

log = logging.getLogger("tandem.feishu")

CHANNEL = FEISHU
_OUTCOME = {"done": "✅ Done.", "cancelled": "🛑 Cancelled.", "failed": "❌ Failed."}


def feishu_chat(state: RunState) -> FeishuChat:
    """Where a Feishu run lives; the worker only ever gets runs whose origin is Feishu."""
    if not isinstance(state.origin, FeishuChat):
        raise DeliveryFailed(f"run {state.id} does not live in Feishu ({state.origin.kind})", permanent=True)
    return state.origin


def review_key(review_id: str) -> str:
    return f"feishu:review:{review_id}"


def uuid_for(delivery: Delivery, form: Form = "full") -> str:
    """The idempotency key of one outbox row's message in ``form`` (Feishu allows 50 characters)."""
    suffix = "" if form == "full" else f"-{form[0]}"
    return f"tandem-{delivery.run_id[:24]}-{delivery.id}"[: 50 - len(suffix)] + suffix


class FeishuChannel:
    """Delivers Feishu-bound outbox rows (a :class:`~agent.delivery.Sender`); tells a waiting click its fate."""

    def __init__(
        self,
        api: FeishuApi,
        store: Store,
        *,
        config: PolicyConfig | None = None,
        card_interval: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.api = api
        self.store = store
        self.config = config or PolicyConfig()
        self.pace = CardPace(card_interval, clock)
        self.worker: DeliveryWorker | None = None
        self._waiting: dict[tuple[str, str], asyncio.Future[Change]] = {}

    # --- transitions --------------------------------------------------------------------------

    async def on_change(self, change: Change) -> None:
        """A transition was committed: deliver its messages now, and wake a click waiting on it."""
        if self.worker is not None:
            self.worker.wake()
        if isinstance(change.event, Decided):
            waiter = self._waiting.get((change.event.review_id, change.event.by))
            if waiter is not None:
                # the click waits on its own loop; the runtime may commit on another (its own thread)
                waiter.get_loop().call_soon_threadsafe(_resolve, waiter, change)

    def expect(self, review_id: str, by: str) -> asyncio.Future[Change]:
        """A future that resolves when ``by``'s decision on ``review_id`` is committed."""
        future: asyncio.Future[Change] = asyncio.get_running_loop().create_future()
        self._waiting[(review_id, by)] = future
        return future

    def forget(self, review_id: str, by: str) -> None:
        self._waiting.pop((review_id, by), None)

    # --- delivering one row -----------------------------------------------------------------

    async def send(self, delivery: Delivery, *, uncertain: bool, form: Form = "full") -> None:
        try:
            await self._send(delivery, form)
        except FeishuError as exc:
            raise DeliveryFailed(str(exc), retry_after=exc.retry_after, permanent=exc.permanent) from None

    async def _send(self, delivery: Delivery, form: Form) -> None:
        message = delivery.message
        if isinstance(message, out.WeeklyReport):  # a report post belongs to no run, and no Feishu chat takes one
            raise DeliveryFailed("report posts go to Slack", permanent=True)
        state, _ = await self.store.load(delivery.run_id)
        where = feishu_chat(state)
        lang = lang_of(state.task)
        uuid = uuid_for(delivery, form)
        if isinstance(message, out.NotStarted):
            await tell_not_started(self.api, state, where.chat_id, message)
            return
        if isinstance(message, out.RunStarted):  # no thread yet: the run's card starts it
            if where.root_id is None:  # (posted already: a row given a fresh start by ``tandem redeliver``)
                card = await self.card(state)
                await post_card(self.api, self.store, where.chat_id, card, uuid, state.id)
                self.pace.posted(state.id, card)
            return
        await wait_for_card(self.store, state)
        root = where.root_id or ""

        async def reply(card: Card) -> str:
            return await self.api.reply_card(root, card, uuid=uuid)

        match message:
            case out.ReviewAsked():
                review = await review_of(self.store, state, message.review_id)
                view = review_view(state, review, SafetyPolicy(self.config))
                if form == "text":  # no card to mark decided later: the run card shows the decision
                    await self.api.reply_text(root, review_text(view), uuid=uuid)
                    return
                card = review_card(view) if form == "full" else short_card(view)
                message_id = await reply(card)
                await self.store.save_message(review_key(review.id), state.id, where.chat_id, message_id, [card])
            case out.ReviewReassigned() | out.ReviewEscalated():
                review = await review_of(self.store, state, message.review_id)
                await reply(line_card(say("now_yours", lang, who=self._people(state, review)), lang))
            case out.ReviewDecided() | out.ReviewClosed():
                await self._mark(state, delivery, message)
            case out.ReviewRedrawn() if message.fresh:
                if state.pending is not None and state.pending.id == message.review_id:
                    view = review_view(state, state.pending, SafetyPolicy(self.config))
                    key = review_key(message.review_id)
                    await repost(self.api, self.store, reply, view, key, where.chat_id, form, delivery.created_at, lang)
            case out.ReviewRedrawn():
                await self._redraw(state, message.review_id, form)
            case out.Reminder():
                review = await review_of(self.store, state, message.review_id)
                said = zh.said(message.text) if lang == "zh" else message.text
                await reply(line_card(f"⏰ {self._people(state, review)} {prose(said, 500)}", lang))
            case out.NewsLine():
                await reply(line_card(prose(zh.said(message.text) if lang == "zh" else message.text, 2900), lang))
            case out.ReadAs():
                await post_read_as(self.api, self.store, reply, state.id, where, message, lang)
            case out.ClarifyAsked():
                m = message
                await reply(
                    clarify_card(m.reading, m.review_id, state.id, m.text, m.anchor, lang, can_approve=m.can_approve)
                )
            case out.RunEnded():
                error = f" {prose(state.error, 2000)}" if state.error else ""
                ended = outcome(state)  # its detail may quote the task's words
                status = message.status
                line = prose(ended.line(lang == "zh"), 2000) if ended is not None else _OUTCOME.get(status, status)
                votes_on = state.id if status == "done" else ""
                await reply(finished_card(line + error, votes_on, lang))
                await close_read_as(self.api, self.store, state.id, say("read_as_closed", lang))
            case out.CardRefresh():
                card = await self.card(state)
                if self.pace.edit_now(state.id, card):
                    await self._edit(state, card)
            case out.Undelivered():
                log.error("a message could not be delivered: %s", message.error[:300], extra=ctx(run=state.id))
            case out.HandoffWebhook() | out.MailNotice():  # (written to their own channels' outboxes, never a chat's)
                raise DeliveryFailed(f"a {message.kind!r} message is sent by its own channel", permanent=True)
            case _:
                assert_never(message)

    def review_card(self, state: RunState, review: Review) -> Card:
        return review_card(review_view(state, review, SafetyPolicy(self.config)))

    def _people(self, state: RunState, review: Review) -> str:
        return " ".join(who(p) for p in (review.current_assignees or [state.requester]))

    async def _mark(self, state: RunState, delivery: Delivery, message: out.ReviewDecided | out.ReviewClosed) -> None:
        """Show who decided on a review's card (or that it is moot), without its buttons."""
        key = review_key(message.review_id)
        closing = await closing_of(self.store, state, message, delivery.created_at, key)
        if closing is None:
            return  # the review was never shown (e.g. answered at once by a deadline)
        posted, line = closing
        await self.api.patch_card(posted.ts, decided(posted.blocks[0], line_text(line, lang_of(state.task))))

    async def _redraw(self, state: RunState, review_id: str, form: Form) -> None:
        """Draw the pending review's card again from the run as it is now (once answered, it has no buttons);
        a review Feishu takes only as text keeps the card it has."""
        posted = await self.store.message(review_key(review_id))
        if state.pending is None or state.pending.id != review_id or posted is None or form == "text":
            return
        view = review_view(state, state.pending, SafetyPolicy(self.config))
        card = review_card(view) if form == "full" else short_card(view)
        await self.api.patch_card(posted.ts, card)
        await self.store.save_message(review_key(review_id), state.id, posted.channel, posted.ts, [card])

    async def update_card(self, state: RunState) -> None:
        await self._edit(state, await self.card(state))

    async def _edit(self, state: RunState, card: Card) -> None:
        await wait_for_card(self.store, state)
        await self.api.patch_card(feishu_chat(state).root_id or "", card)
        self.pace.shown(state.id, card)

    async def card(self, state: RunState) -> Card:
        """The run card, as the run is now (with a warning of what could not be delivered)."""
        view = await run_card_view(self.store, state, SafetyPolicy(self.config))
        lang = lang_of(state.task)
        lines = [line_text(line, lang) for line in view.decisions]
        return run_card(
            state, lines, zh.doing(view.doing) if lang == "zh" else view.doing, view.undelivered_note(escape)
        )


def card_data(card: Card) -> dict[str, Any]:
    """A card as a callback's answer carries it."""
    return {"type": "raw", "data": card}


def _resolve(waiter: asyncio.Future[Change], change: Change) -> None:
    if not waiter.done():
        waiter.set_result(change)
