"""The run card in Slack: its blocks as the run is now, posted once and edited at most once per interval."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from agent.card_first import wait_for_card
from agent.card_pace import CardPace
from agent.card_view import run_card_view
from agent.config import PolicyConfig
from agent.models import Delivery, NotStarted, RunStarted, RunState
from agent.policy import SafetyPolicy
from agent.ports import Store
from blocks.run_card import run_card
from blocks.text import context, escaped
from bot.approvers import answerers, approvers
from bot.opening import post_card, tell_not_started
from bot.thread_post import slack_thread


class RunCards:
    """Posts and edits the run cards of Slack runs."""

    def __init__(
        self,
        client: AsyncWebClient,
        store: Store,
        config: PolicyConfig,
        *,
        card_interval: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.store = store
        self.config = config
        self.pace = CardPace(card_interval, clock)

    async def open(
        self,
        state: RunState,
        delivery: Delivery,
        message: RunStarted | NotStarted,
        channel: str,
        uncertain: bool,
    ) -> None:
        """The run's card, as the run is by now (or, given up on, the requester told so)."""
        if isinstance(message, NotStarted):
            await tell_not_started(self.client, state, channel, message)
        elif state.origin.thread is None:  # (posted already: a row given a fresh start by ``tandem redeliver``)
            text = f"Tandem run: {state.task} ({state.status})"
            blocks = await self.card(state)
            await post_card(self.client, self.store, delivery, channel, blocks, text, uncertain=uncertain)
            self.pace.posted(state.id, blocks)

    async def refresh(self, state: RunState) -> None:
        """Edit the card, paced (see :class:`CardPace`)."""
        blocks = await self.card(state)
        if self.pace.edit_now(state.id, blocks):
            await self._edit(state, blocks)

    async def update_card(self, state: RunState) -> None:
        await self._edit(state, await self.card(state))

    async def _edit(self, state: RunState, blocks: list[dict[str, Any]]) -> None:
        await wait_for_card(self.store, state)
        await self.client.chat_update(
            channel=slack_thread(state).channel_id,
            ts=slack_thread(state).thread_ts or "",
            blocks=blocks,
            text=f"Tandem run: {state.task} ({state.status})",
        )
        self.pace.shown(state.id, blocks)

    async def card(self, state: RunState) -> list[dict[str, Any]]:
        """The run card's blocks, as the run is now (with a note of what could not be delivered)."""
        view = await run_card_view(self.store, state, SafetyPolicy(self.config))
        who = answerers(view.answerers) if view.answerers else None
        blocks = run_card(
            state, view.decisions, approvers=approvers(self.config), waiting_on=view.waiting_on, answerers=who
        )
        note = view.undelivered_note(lambda error: escaped(error, 200))
        return [*blocks[:49], context(f"⚠️ {note}")] if note else blocks
