"""The Slack channel: posts each review in the run's thread, keeps the run card current.

It observes persisted transitions only, so what people see never runs ahead of
what is on disk.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from agent.config import PolicyConfig
from agent.models import AskHuman, CancelRequested, Decided, Finished, Notify, Remind, Review, Risk, RunState, TimedOut
from agent.ports import Change
from blocks import review_blocks
from blocks.decided import DecisionLine, decided, line_for
from blocks.run_card import run_card
from blocks.text import context, escaped, mention_any, section, waiting_for
from bot.render import decision_lines
from bot.tasks import Background
from storage.facade import AsyncStore

log = logging.getLogger("tandem.bot")

_OUTCOME = {"done": "✅ Done.", "cancelled": "🛑 Cancelled.", "failed": "❌ Failed."}


def review_key(review_id: str) -> str:
    return f"review:{review_id}"


class SlackChannel:
    def __init__(
        self,
        client: AsyncWebClient,
        store: AsyncStore,
        background: Background,
        *,
        card_interval: float = 1.0,
        config: PolicyConfig | None = None,
    ) -> None:
        self.config = config or PolicyConfig()
        self.client = client
        self.store = store
        self.background = background
        self.card_interval = card_interval
        self._dirty: set[str] = set()

    async def on_change(self, change: Change) -> None:
        state = change.state
        where = state.channel
        if "channel" not in where or "thread_ts" not in where:
            return  # not a Slack run (e.g. started from the terminal)
        if change.answered is not None:
            await self._mark_decided(change)
        for effect in change.effects:
            if isinstance(effect, AskHuman) and effect.review.escalated and self.config.escalation_channel:
                await self._escalate(state, effect.review)
            elif isinstance(effect, AskHuman) and change.answered is None and effect.review.id == _asked_before(change):
                await self._reassigned(state, effect.review)
            elif isinstance(effect, AskHuman):
                blocks = review_blocks(state, effect.review)
                text = f"Tandem needs a decision on run {state.id}"
                resp = await self.client.chat_postMessage(
                    channel=where["channel"], thread_ts=where["thread_ts"], blocks=blocks, text=text
                )
                await self.store.save_message(
                    review_key(effect.review.id), state.id, where["channel"], str(resp["ts"]), blocks
                )
            elif isinstance(effect, Remind):
                await self._remind(state, effect)
            elif isinstance(effect, Notify):
                await self._say(state, escaped(effect.text, 2900))
            elif isinstance(effect, Finished):
                await self._say(
                    state, _OUTCOME[effect.status] + (f" {escaped(state.error, 2000)}" if state.error else "")
                )
        self.schedule_card(state.id)

    def _people(self, state: RunState, review: Review) -> str:
        who = review.current_assignees or [state.requester]
        return " ".join(mention_any(p) for p in who)

    async def _remind(self, state: RunState, effect: Remind) -> None:
        await self._say(state, f"⏰ {self._people(state, effect.review)} {escaped(effect.text, 500)}")

    async def _reassigned(self, state: RunState, review: Review) -> None:
        await self._say(state, f"👉 {self._people(state, review)} this now waits on you.")

    async def _escalate(self, state: RunState, review: Review) -> None:
        channel = self.config.escalation_channel
        assert channel is not None
        where = state.channel
        link = f"run `{state.id}` in <#{where['channel']}>"
        text = f"🚨 Nobody decided on {link} in time: it waits for {waiting_for(review)}."
        blocks = [section(text), *review_blocks(state, review)]
        await self.client.chat_postMessage(channel=channel, blocks=blocks[:50], text=text)

    async def _say(self, state: RunState, mrkdwn: str) -> None:
        await self.client.chat_postMessage(
            channel=state.channel["channel"],
            thread_ts=state.channel["thread_ts"],
            blocks=[context(mrkdwn)],
            text=mrkdwn,
        )

    async def _mark_decided(self, change: Change) -> None:
        assert change.answered is not None
        posted = await self.store.message(review_key(change.answered))
        if posted is None:
            return
        channel, ts, blocks = posted
        record = await self.store.get_review(change.answered)
        review = None
        if record is not None:
            review = Review(id=record.id, anchor=record.anchor, step=record.step, created_at=record.created_at)
        line = _line(change, review)
        if line is None:
            return
        await self.client.chat_update(channel=channel, ts=ts, blocks=decided(blocks, line), text=line.verb)

    # --- the run card: throttled and coalesced ----------------------------------

    def schedule_card(self, run_id: str) -> None:
        if run_id in self._dirty:
            return  # an update is already on its way and will read the latest state
        self._dirty.add(run_id)
        self.background.spawn(self._flush_card(run_id), name=f"card:{run_id}")

    async def _flush_card(self, run_id: str) -> None:
        await asyncio.sleep(self.card_interval)
        self._dirty.discard(run_id)
        state, _ = await self.store.load(run_id)
        lines = decision_lines(await self.store.events(run_id))
        await self.update_card(state, lines)

    async def update_card(self, state: RunState, lines: list[DecisionLine]) -> None:
        where = state.channel
        await self.client.chat_update(
            channel=where["channel"],
            ts=where["thread_ts"],
            blocks=run_card(state, lines, approvers=_approvers(self.config)),
            text=f"Tandem run: {state.task} ({state.status})",
        )


def _line(change: Change, review: Review | None) -> DecisionLine | None:
    event = change.event
    if isinstance(event, Decided):
        return line_for(event, review)
    if isinstance(event, CancelRequested):
        return DecisionLine(actor=event.by, verb="Cancelled", at=event.at, detail=event.reason, outcome="cancelled")
    return None


def _asked_before(change: Change) -> str | None:
    """The review that was pending before this change, if it was asked again (reassigned)."""
    event = change.event
    return event.review_id if isinstance(event, TimedOut) else None


def _approvers(config: PolicyConfig) -> str | None:
    if not config.has_approvers:
        return None
    parts = []
    for level, people in sorted(config.approvers.items(), key=lambda kv: Risk.parse(kv[0])):
        if people:
            names = ", ".join(mention_any(p) for p in people)
            parts.append(f"{level}+ {names}")
    return "; ".join(parts)


def card_placeholder(task: str, requester: str) -> list[dict[str, Any]]:
    return [context(f"⏳ Planning *{escaped(task, 2000)}* for <@{requester}>…")]
