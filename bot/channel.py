"""The Slack channel: renders and delivers the outbox rows of runs that live in a Slack thread.

Transitions write what people should see into the outbox, in their own transaction;
this module turns one row into Slack calls when the delivery worker
(:class:`agent.delivery.DeliveryWorker`) hands it over, reading the run as it is by
then. It never runs under a run's lock, and a failed call raises
:class:`~agent.delivery.DeliveryFailed` so the worker retries it or makes it visible.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, assert_never

import aiohttp
from slack_sdk.errors import SlackApiError, SlackRequestError
from slack_sdk.web.async_client import AsyncWebClient

from agent.card_first import wait_for_card
from agent.config import PolicyConfig
from agent.delivery import DeliveryDeferred, DeliveryFailed, DeliveryWorker
from agent.models import CancelRequested, Decided, Delivery, Form, Reading, Review, Risk, RunState, TimedOut
from agent.outcome import outcome
from agent.policy import SafetyPolicy
from agent.ports import Change, Store
from agent.review_view import review_view
from blocks import review_blocks
from blocks.clarify import clarify, resolved
from blocks.decided import DecisionLine, classified_reply, decided, decision_text, line_for
from blocks.result_feedback import result_details_button, result_feedback
from blocks.run_card import run_card
from blocks.shorter import review_in
from blocks.text import context, escaped, mention_any, section, waiting_for
from bot.opening import post_card, tell_not_started
from bot.origin import SLACK, SlackThread
from bot.render import decision_lines
from bot.weekly import ReportPoster

log = logging.getLogger("tandem.bot")

CHANNEL = SLACK
_OUTCOME = {"done": "✅ Done.", "cancelled": "🛑 Cancelled.", "failed": "❌ Failed."}
# Errors that no retry can cure: the message itself is wrong.
_PERMANENT = frozenset(
    "msg_too_long msg_blocks_too_long too_many_blocks invalid_blocks invalid_blocks_format invalid_arguments"
    " no_text".split()
)
METADATA_TYPE = "tandem_delivery"
REVIEW_METADATA_TYPE = "tandem_review"
"""A review message says what it asks on the message itself: run, review, anchor and step (and its delivery)."""


def slack_thread(state: RunState) -> SlackThread:
    """Where a Slack run lives; the worker only ever gets runs whose origin is Slack."""
    if not isinstance(state.origin, SlackThread):
        raise DeliveryFailed(f"run {state.id} does not live in Slack ({state.origin.kind})", permanent=True)
    return state.origin


def clarify_key(review_id: str) -> str:
    """Where the open "not sure what you meant" question about a review is kept."""
    return f"clarify:{review_id}"


def review_key(review_id: str) -> str:
    return f"review:{review_id}"


class SlackChannel:
    """Delivers Slack-bound outbox rows (a :class:`~agent.delivery.Sender`) and wakes the worker on change."""

    def __init__(
        self,
        client: AsyncWebClient,
        store: Store,
        *,
        config: PolicyConfig | None = None,
        card_interval: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config or PolicyConfig()
        self.client = client
        self.store = store
        self.card_interval = card_interval
        self.clock = clock
        self.worker: DeliveryWorker | None = None
        self.reports = ReportPoster(client, store, self.config)
        self._card_at: dict[str, float] = {}

    async def on_change(self, change: Change) -> None:
        """A transition was committed (its messages are in the outbox): deliver them now."""
        if self.worker is not None:
            self.worker.wake()

    # --- delivering one row ------------------------------------------------------

    async def send(self, delivery: Delivery, *, uncertain: bool, form: Form = "full") -> None:
        try:
            await self._send(delivery, uncertain, form)
        except SlackApiError as exc:
            error = str(exc.response.get("error") or f"HTTP {exc.response.status_code}")
            retry_after = exc.response.headers.get("Retry-After") if exc.response.headers else None
            raise DeliveryFailed(
                error,
                retry_after=float(retry_after) if retry_after else None,
                permanent=error in _PERMANENT,
            ) from None
        except SlackRequestError as exc:  # e.g. the file upload step of files_upload_v2 failed
            raise DeliveryFailed(f"request failed: {str(exc)[:200]}") from None
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise DeliveryFailed(f"connection failed: {type(exc).__name__}") from None

    async def _send(self, delivery: Delivery, uncertain: bool, form: Form) -> None:
        if delivery.message.kind == "weekly_report":  # a report post belongs to no run
            await self.reports.send(delivery, uncertain=uncertain)
            return
        state, _ = await self.store.load(delivery.run_id)
        where = slack_thread(state)
        message = delivery.message
        if message.kind in ("started", "not_started"):  # no thread yet: the run's card starts it
            await self._open(state, delivery, where.channel_id, uncertain)
            return
        await wait_for_card(self.store, state)
        assert where.thread_ts is not None
        post = _Post(self.client, delivery, where.channel_id, where.thread_ts)
        if uncertain and message.kind != "card":
            earlier = await post.already_there()
            if earlier is not None:  # the earlier attempt went through before its worker stopped
                if message.kind == "review" and message.review_id:
                    blocks = list(earlier.get("blocks") or [])
                    key = review_key(message.review_id)
                    await self.store.save_message(key, state.id, where.channel_id, str(earlier["ts"]), blocks)
                return
        match message.kind:
            case "review":
                review = await self._review(state, message.review_id or "")
                blocks, text = self._review_in(form, state, review)
                about = {"review": review.id, "anchor": review.anchor, "step": review.step}
                ts = await post.blocks(blocks, text, review=about)
                kept = blocks or [section(text)]  # a text review gets its decision line below its text
                await self.store.save_message(review_key(review.id), state.id, where.channel_id, ts, kept)
            case "reassigned":
                review = await self._review(state, message.review_id or "")
                await post.line(f"👉 {self._people(state, review)} this now waits on you.")
            case "escalate":
                await self._escalate(state, await self._review(state, message.review_id or ""), post, form)
            case "decided" | "closed":
                await self._mark(state, delivery)
            case "redrawn":
                await self._redraw(state, message.review_id or "", form)
            case "remind":
                review = await self._review(state, message.review_id or "")
                await post.line(f"⏰ {self._people(state, review)} {escaped(message.text, 500)}")
            case "notify":
                await post.line(escaped(message.text, 2900))
            case "read_as":
                reading = Reading.model_validate(message.data["reading"])
                await post.blocks(classified_reply(reading, message.review_id or ""), f"Read as: {reading.intent}")
            case "clarify":
                reading = Reading.model_validate(message.data["reading"])
                text, anchor = str(message.data.get("text", "")), str(message.data.get("anchor", ""))
                approve = bool(message.data.get("can_approve", True))
                blocks = clarify(reading, message.review_id or "", text, anchor, can_approve=approve)
                key = clarify_key(message.review_id or "")
                asked_before = await self.store.message(key)
                ts = await post.blocks(blocks, "Not sure what you meant")
                await self.store.save_message(key, state.id, where.channel_id, ts, blocks)
                if asked_before is not None and _live(asked_before.blocks):  # one open question per review
                    done = resolved(asked_before.blocks, "Asked again below.")
                    await self.client.chat_update(
                        channel=asked_before.channel, ts=asked_before.ts, blocks=done, text="Asked again"
                    )
            case "finished":
                status = str(message.data.get("status", state.status))
                error = f" {escaped(state.error, 2000)}" if state.error else ""
                ok = status == "done"
                ended = outcome(state)  # its detail may quote the task's words: escaped
                line = (escaped(ended.line(), 2000) if ended is not None else _OUTCOME.get(status, status)) + error
                votes = [result_feedback(state.id)] if ok else []
                details = [result_details_button(state.id)] if ok and state.output else []
                await post.blocks([context(line), *details, *votes], line)
            case "card":
                wait = self._card_at.get(state.id, -1e9) + self.card_interval - self.clock()
                if wait > 0:
                    raise DeliveryDeferred(wait)  # one edit per interval; later changes join this one
                self._card_at[state.id] = self.clock()
                await self.update_card(state)
            case "undelivered":
                await self._undelivered(state, delivery)
            case "weekly_report" | "started" | "not_started":
                raise AssertionError(f"{message.kind} is sent before the run's thread is looked up")
            case _:
                assert_never(message.kind)

    async def _open(self, state: RunState, delivery: Delivery, channel: str, uncertain: bool) -> None:
        """The run's card, as the run is by now (or, given up on, the requester told so)."""
        if delivery.message.kind == "not_started":
            await tell_not_started(self.client, state, channel, delivery)
        elif state.origin.thread is None:  # (posted already: a row given a fresh start by ``tandem redeliver``)
            text = f"Tandem run: {state.task} ({state.status})"
            await post_card(
                self.client, self.store, delivery, channel, await self.card(state), text, uncertain=uncertain
            )
            self._card_at[state.id] = self.clock()

    async def _review(self, state: RunState, review_id: str) -> Review:
        if state.pending is not None and state.pending.id == review_id:
            return state.pending
        record = await self.store.get_review(review_id)
        if record is None:
            raise DeliveryFailed(f"review {review_id} is not in the database", permanent=True)
        return record.as_review()

    def _review_in(
        self, form: Form, state: RunState, review: Review, here: str = "in this thread"
    ) -> tuple[list[dict[str, Any]], str]:
        """The review's message in ``form``: its blocks (none as text alone) and its text."""
        safety = SafetyPolicy(self.config)
        return review_in(form, review_view(state, review, safety), review_blocks(state, review, safety), here)

    def _people(self, state: RunState, review: Review) -> str:
        who = review.current_assignees or [state.requester]
        return " ".join(mention_any(p) for p in who)

    async def _escalate(self, state: RunState, review: Review, post: _Post, form: Form) -> None:
        channel = self.config.escalation_channel
        if channel is None:
            await post.line(f"👉 {self._people(state, review)} this now waits on you.")
            return
        link = f"run `{state.id}` in <#{slack_thread(state).channel_id}>"
        text = f"🚨 Nobody decided on {link} in time: it waits for {waiting_for(review)}."
        blocks, plain = self._review_in(form, state, review, "in the run's thread")
        if not blocks:
            await self.client.chat_postMessage(channel=channel, text=f"{text}\n{plain}")
            return
        await self.client.chat_postMessage(channel=channel, blocks=[section(text), *blocks][:50], text=text)

    async def _undelivered(self, state: RunState, delivery: Delivery) -> None:
        channel = self.config.escalation_channel
        if channel is None:
            return
        text = (
            f"⚠️ Tandem could not deliver a message of run `{state.id}` in <#{slack_thread(state).channel_id}>: "
            f"{escaped(delivery.message.text, 300)}. `tandem redeliver {state.id}` tries again."
        )
        await self.client.chat_postMessage(channel=channel, text=text, blocks=[section(text)])

    async def _mark(self, state: RunState, delivery: Delivery) -> None:
        """Show who decided on a review's message (or that it is moot), without its buttons."""
        review_id = delivery.message.review_id or ""
        posted = await self.store.message(review_key(review_id))
        if posted is None:
            status = await self.store.delivery_status(state.id, "review", review_id)
            if status in ("pending", "sending"):
                raise DeliveryFailed("the review's own message is not posted yet")
            return  # the review was never shown (e.g. answered at once by a deadline)
        review = await self._review(state, review_id)
        line = _line(delivery, review)
        await self.client.chat_update(
            channel=posted.channel, ts=posted.ts, blocks=decided(posted.blocks, line), text=line.verb
        )
        question = await self.store.message(clarify_key(review_id))
        if question is not None and _live(question.blocks):
            blocks = resolved(question.blocks, decision_text(line))
            await self.client.chat_update(channel=question.channel, ts=question.ts, blocks=blocks, text=line.verb)
            await self.store.save_message(clarify_key(review_id), state.id, question.channel, question.ts, blocks)

    async def _redraw(self, state: RunState, review_id: str, form: Form) -> None:
        """Draw the pending review's message again from the run as it is now (once answered, it has no buttons)."""
        posted = await self.store.message(review_key(review_id))
        if state.pending is None or state.pending.id != review_id or posted is None:
            return
        blocks, text = self._review_in(form, state, state.pending)
        blocks = blocks or [section(text)]
        await self.client.chat_update(channel=posted.channel, ts=posted.ts, blocks=blocks, text="Tandem review")
        await self.store.save_message(review_key(review_id), state.id, posted.channel, posted.ts, blocks)

    async def update_card(self, state: RunState) -> None:
        await wait_for_card(self.store, state)
        await self.client.chat_update(
            channel=slack_thread(state).channel_id,
            ts=slack_thread(state).thread_ts or "",
            blocks=await self.card(state),
            text=f"Tandem run: {state.task} ({state.status})",
        )

    async def card(self, state: RunState) -> list[dict[str, Any]]:
        """The run card's blocks, as the run is now (with a note of what could not be delivered)."""
        lines = decision_lines(await self.store.events(state.id))
        undelivered = [d for d in await self.store.undelivered(state.id) if d.message.kind != "started"]
        safety = SafetyPolicy(self.config)
        waiting = safety.waiting_on(state, state.pending) if state.pending is not None else ()
        blocks = run_card(state, lines, approvers=_approvers(self.config), waiting_on=waiting)
        if undelivered:
            last = undelivered[-1]
            note = (
                f"⚠️ {len(undelivered)} message{'s' if len(undelivered) != 1 else ''} of this run could not be "
                f"delivered ({escaped(last.error or 'unknown error', 200)}); `tandem redeliver {state.id}` retries."
            )
            blocks = [*blocks[:49], context(note)]
        return blocks


class _Post:
    """Posting one delivery in a run's thread, stamped with the delivery id so a retry can find it."""

    def __init__(self, client: AsyncWebClient, delivery: Delivery, channel: str, thread_ts: str) -> None:
        self.client = client
        self.delivery = delivery
        self.channel = channel
        self.thread_ts = thread_ts

    def metadata(self, review: dict[str, Any] | None = None) -> dict[str, Any]:
        payload = {"delivery": self.delivery.id, "run": self.delivery.run_id, **(review or {})}
        return {"event_type": REVIEW_METADATA_TYPE if review else METADATA_TYPE, "event_payload": payload}

    async def blocks(self, blocks: list[dict[str, Any]], text: str, *, review: dict[str, Any] | None = None) -> str:
        """Post ``blocks`` (none: ``text`` alone) in the run's thread; the new message's ``ts``."""
        resp = await self.client.chat_postMessage(
            channel=self.channel,
            thread_ts=self.thread_ts,
            blocks=blocks or None,
            text=text,
            metadata=self.metadata(review),
        )
        return str(resp["ts"])

    async def line(self, mrkdwn: str) -> None:
        await self.blocks([context(mrkdwn)], mrkdwn)

    async def already_there(self) -> dict[str, Any] | None:
        """The thread's message carrying this delivery, if an earlier attempt went through."""
        resp = await self.client.conversations_replies(
            channel=self.channel, ts=self.thread_ts, include_all_metadata=True, limit=200
        )
        for message in resp.get("messages") or []:
            meta = message.get("metadata") or {}
            payload = meta.get("event_payload") or {}
            ours = meta.get("event_type") in (METADATA_TYPE, REVIEW_METADATA_TYPE)
            if ours and payload.get("delivery") == self.delivery.id:
                return dict(message)
        return None


def _live(blocks: list[dict[str, Any]]) -> bool:
    """Whether a message still offers buttons."""
    return any(b.get("type") == "actions" for b in blocks)


def _line(delivery: Delivery, review: Review) -> DecisionLine:
    data = delivery.message.data.get("event")
    kind = data.get("kind") if isinstance(data, dict) else None
    if kind == "decided":
        return line_for(Decided.model_validate(data), review)
    if kind == "cancel_requested":
        cancel = CancelRequested.model_validate(data)
        return DecisionLine(actor=cancel.by, verb="Cancelled", at=cancel.at, detail=cancel.reason, outcome="cancelled")
    if kind == "timed_out":
        late = TimedOut.model_validate(data)
        return DecisionLine(actor=None, verb="Decided by the deadline: nobody answered in time", at=late.at)
    return DecisionLine(actor=None, verb="No longer open: the run moved on", at=delivery.created_at)


def _approvers(config: PolicyConfig) -> str | None:
    if not config.has_approvers:
        return None
    parts = []
    for level, people in sorted(config.approvers.items(), key=lambda kv: Risk.parse(kv[0])):
        if people:
            names = ", ".join(mention_any(p) for p in people)
            parts.append(f"{level}+ {names}")
    return "; ".join(parts)
