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
from typing import assert_never

import aiohttp
from slack_sdk.errors import SlackApiError, SlackRequestError
from slack_sdk.web.async_client import AsyncWebClient

from agent.card_first import wait_for_card
from agent.config import PolicyConfig
from agent.delivery import DeliveryFailed, DeliveryWorker
from agent.models import Delivery, Form, RunState
from agent.models import outbox as out
from agent.outcome import outcome
from agent.ports import Change, Store
from blocks.decided import classified_reply
from blocks.markdown import output_blocks
from blocks.result_feedback import result_details_button, result_feedback
from blocks.text import context, escaped, section
from bot.origin import SLACK
from bot.review_posts import ReviewPosts
from bot.run_cards import RunCards
from bot.streaming import Streams
from bot.thread_post import ThreadPost, slack_thread
from bot.weekly import ReportPoster

log = logging.getLogger("tandem.bot")

CHANNEL = SLACK
_OUTCOME = {"done": "✅ Done.", "cancelled": "🛑 Cancelled.", "failed": "❌ Failed."}
# Errors that no retry can cure: the message itself is wrong.
_PERMANENT = frozenset(
    "msg_too_long msg_blocks_too_long too_many_blocks invalid_blocks invalid_blocks_format invalid_arguments"
    " no_text".split()
)


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
        self.worker: DeliveryWorker | None = None
        self.reports = ReportPoster(client, store, self.config)
        self.reviews = ReviewPosts(client, store, self.config)
        self.cards = RunCards(client, store, self.config, card_interval=card_interval, clock=clock)
        self.streams = Streams(client)

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
        message = delivery.message
        if isinstance(message, out.WeeklyReport):  # a report post belongs to no run
            await self.reports.send(delivery, message, uncertain=uncertain)
            return
        state, _ = await self.store.load(delivery.run_id)
        where = slack_thread(state)
        if isinstance(message, out.RunStarted | out.NotStarted):  # no thread yet: the run's card starts it
            await self.cards.open(state, delivery, message, where.channel_id, uncertain)
            return
        await wait_for_card(self.store, state)
        assert where.thread_ts is not None
        post = ThreadPost(self.client, delivery, where.channel_id, where.thread_ts)
        if uncertain and not isinstance(message, out.CardRefresh):
            earlier = await post.already_there()
            if earlier is not None:  # the earlier attempt went through before its worker stopped
                if isinstance(message, out.ReviewAsked):
                    await self.reviews.found(state, message.review_id, where.channel_id, earlier)
                return
        match message:
            case out.ReviewAsked():
                await self.reviews.post(state, post, message.review_id, form)
            case out.ReviewReassigned():
                await self.reviews.reassigned(state, post, message.review_id)
            case out.ReviewEscalated():
                await self.reviews.escalate(state, post, message.review_id, form)
            case out.ReviewDecided() | out.ReviewClosed():
                await self.reviews.mark(state, delivery, message)
            case out.ReviewRedrawn():
                await self.reviews.redraw(state, message.review_id, form)
            case out.Reminder():
                await self.reviews.remind(state, post, message)
            case out.NewsLine():
                await post.line(escaped(message.text, 2900))
            case out.ReadAs():
                blocks = classified_reply(message.reading, message.review_id)
                await post.blocks(blocks, f"Read as: {message.reading.intent.replace('_', ' ')}")
            case out.ClarifyAsked():
                await self.reviews.ask(state, post, message)
            case out.RunEnded():
                await self._finished(state, post, message.status)
            case out.CardRefresh():
                await self.cards.refresh(state)
            case out.Undelivered():
                await self._undelivered(state, message)
            case out.HandoffWebhook() | out.MailNotice():  # (written to their own channels' outboxes, never a chat's)
                raise DeliveryFailed(f"a {message.kind!r} message is sent by its own channel", permanent=True)
            case _:
                assert_never(message)

    async def _finished(self, state: RunState, post: ThreadPost, status: str) -> None:
        error = f" {escaped(state.error, 2000)}" if state.error else ""
        ok = status == "done"
        ended = outcome(state)  # its detail may quote the task's words: escaped
        line = (escaped(ended.line(), 2000) if ended is not None else _OUTCOME.get(status, status)) + error
        votes = [result_feedback(state.id)] if ok else []
        details = [result_details_button(state.id)] if ok and state.output else []
        below = [context(line), *details, *votes]
        # the card shows the result in one line: the thread has it whole (unless its result review just did)
        if not (ok and state.output and not result_reviewed(state)):
            await post.blocks(below, line)
            return
        result = output_blocks(state.output).blocks
        markdown = [b["text"] for b in result if b.get("type") == "markdown"]
        if len(markdown) == len(result) and await self.streams.post(
            post, "\n\n".join(markdown), below, state.requester
        ):
            return
        await post.blocks([*result, *below], line)

    async def _undelivered(self, state: RunState, message: out.Undelivered) -> None:
        channel = self.config.escalation_channel
        if channel is None:
            return
        text = (
            f"⚠️ Tandem could not deliver a message of run `{state.id}` in <#{slack_thread(state).channel_id}>: "
            f"{escaped(message.error, 300)}. `tandem redeliver {state.id}` tries again."
        )
        await self.client.chat_postMessage(channel=channel, text=text, blocks=[section(text)])


def result_reviewed(state: RunState) -> bool:
    """Whether the last review the run asked showed its result (a result review shows it whole)."""
    return state.asked is not None and state.asked.anchor == "before_result"
