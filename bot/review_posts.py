"""A run's review messages in Slack: the review itself, its reminders and escalation, its question, its decision."""

from __future__ import annotations

from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from agent.card_view import waiting_for
from agent.config import PolicyConfig
from agent.delivery import closing_of, review_of
from agent.models import ClarifyAsked, Delivery, Form, Reminder, Review, ReviewClosed, ReviewDecided, RunState
from agent.policy import SafetyPolicy
from agent.ports import Store
from agent.review_view import review_view
from blocks import review_blocks
from blocks.clarify import clarify, resolved
from blocks.decided import decided, decision_text
from blocks.shorter import review_in
from blocks.text import escaped, mention_any, section
from bot.thread_post import ThreadPost, slack_thread


def clarify_key(review_id: str) -> str:
    """Where the open "not sure what you meant" question about a review is kept."""
    return f"clarify:{review_id}"


def review_key(review_id: str) -> str:
    return f"review:{review_id}"


class ReviewPosts:
    """Posts, edits and marks the messages about a run's reviews."""

    def __init__(self, client: AsyncWebClient, store: Store, config: PolicyConfig) -> None:
        self.client = client
        self.store = store
        self.config = config

    async def review(self, state: RunState, review_id: str) -> Review:
        return await review_of(self.store, state, review_id)

    async def post(self, state: RunState, post: ThreadPost, review_id: str, form: Form) -> None:
        """The review's message in the thread, in ``form``, kept so its decision can be shown on it."""
        review = await self.review(state, review_id)
        blocks, text = self._review_in(form, state, review)
        about = {"review": review.id, "anchor": review.anchor, "step": review.step}
        ts = await post.blocks(blocks, text, review=about)
        kept = blocks or [section(text)]  # a text review gets its decision line below its text
        await self.store.save_message(review_key(review.id), state.id, post.channel, ts, kept)

    async def found(self, state: RunState, review_id: str, channel: str, earlier: dict[str, Any]) -> None:
        """An earlier attempt posted the review before its worker stopped: keep that message as the review's."""
        blocks = list(earlier.get("blocks") or [])
        await self.store.save_message(review_key(review_id), state.id, channel, str(earlier["ts"]), blocks)

    async def reassigned(self, state: RunState, post: ThreadPost, review_id: str) -> None:
        review = await self.review(state, review_id)
        await post.line(f"👉 {self._people(state, review)} this now waits on you.")

    async def remind(self, state: RunState, post: ThreadPost, message: Reminder) -> None:
        review = await self.review(state, message.review_id)
        await post.line(f"⏰ {self._people(state, review)} {escaped(message.text, 500)}")

    async def escalate(self, state: RunState, post: ThreadPost, review_id: str, form: Form) -> None:
        review = await self.review(state, review_id)
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

    async def ask(self, state: RunState, post: ThreadPost, message: ClarifyAsked) -> None:
        """Ask what a reply meant; one open question per review (an earlier one is closed)."""
        m = message
        blocks = clarify(m.reading, m.review_id, m.text, m.anchor, can_approve=m.can_approve)
        key = clarify_key(m.review_id)
        asked_before = await self.store.message(key)
        ts = await post.blocks(blocks, "Not sure what you meant")
        await self.store.save_message(key, state.id, post.channel, ts, blocks)
        if asked_before is not None and live(asked_before.blocks):
            done = resolved(asked_before.blocks, "Asked again below.")
            await self.client.chat_update(
                channel=asked_before.channel, ts=asked_before.ts, blocks=done, text="Asked again"
            )

    async def mark(self, state: RunState, delivery: Delivery, message: ReviewDecided | ReviewClosed) -> None:
        """Show who decided on a review's message (or that it is moot), without its buttons."""
        review_id = message.review_id
        closing = await closing_of(self.store, state, message, delivery.created_at, review_key(review_id))
        if closing is None:
            return  # the review was never shown (e.g. answered at once by a deadline)
        posted, line = closing
        await self.client.chat_update(
            channel=posted.channel, ts=posted.ts, blocks=decided(posted.blocks, line), text=line.verb
        )
        question = await self.store.message(clarify_key(review_id))
        if question is not None and live(question.blocks):
            blocks = resolved(question.blocks, decision_text(line))
            await self.client.chat_update(channel=question.channel, ts=question.ts, blocks=blocks, text=line.verb)
            await self.store.save_message(clarify_key(review_id), state.id, question.channel, question.ts, blocks)

    async def redraw(self, state: RunState, review_id: str, form: Form) -> None:
        """Draw the pending review's message again from the run as it is now (once answered, it has no buttons)."""
        posted = await self.store.message(review_key(review_id))
        if state.pending is None or state.pending.id != review_id or posted is None:
            return
        blocks, text = self._review_in(form, state, state.pending)
        blocks = blocks or [section(text)]
        await self.client.chat_update(channel=posted.channel, ts=posted.ts, blocks=blocks, text="Tandem review")
        await self.store.save_message(review_key(review_id), state.id, posted.channel, posted.ts, blocks)

    def _review_in(
        self, form: Form, state: RunState, review: Review, here: str = "in this thread"
    ) -> tuple[list[dict[str, Any]], str]:
        """The review's message in ``form``: its blocks (none as text alone) and its text."""
        safety = SafetyPolicy(self.config)
        return review_in(form, review_view(state, review, safety), review_blocks(state, review, safety), here)

    def _people(self, state: RunState, review: Review) -> str:
        who = review.current_assignees or [state.requester]
        return " ".join(mention_any(p) for p in who)


def live(blocks: list[dict[str, Any]]) -> bool:
    """Whether a message still offers buttons."""
    return any(b.get("type") == "actions" for b in blocks)
