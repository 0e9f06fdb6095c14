"""Posting one outbox row in a run's Slack thread, stamped so a retry can find what went out."""

from __future__ import annotations

from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from agent.delivery import DeliveryFailed
from agent.models import Delivery, RunState
from blocks.text import context
from bot.origin import SlackThread

METADATA_TYPE = "tandem_delivery"
REVIEW_METADATA_TYPE = "tandem_review"
"""A review message says what it asks on the message itself: run, review, anchor and step (and its delivery)."""


def slack_thread(state: RunState) -> SlackThread:
    """Where a Slack run lives; the worker only ever gets runs whose origin is Slack."""
    if not isinstance(state.origin, SlackThread):
        raise DeliveryFailed(f"run {state.id} does not live in Slack ({state.origin.kind})", permanent=True)
    return state.origin


class ThreadPost:
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
