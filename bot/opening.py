"""A run's card, posted from the outbox as the run's first message (its thread's root), and the requester
told privately when it could never be posted."""

from __future__ import annotations

from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from agent.models import Delivery, NotStarted, RunState
from agent.ports import Store
from blocks.text import escaped, section
from bot import messages
from bot.origin import SlackThread

CARD_METADATA_TYPE = "tandem_card"
"""A run card says which delivery posted it, so a retry after an uncertain attempt finds it."""
_TRY_AGAIN = frozenset({"ratelimited", "internal_error", "fatal_error", "service_unavailable", "request_timeout"})


async def post_card(
    client: AsyncWebClient,
    store: Store,
    delivery: Delivery,
    channel: str,
    blocks: list[dict[str, Any]],
    text: str,
    *,
    uncertain: bool,
) -> None:
    """Post the card in ``channel`` (once: an uncertain retry looks for the earlier post first); the run's
    thread is the card's from now on."""
    ts = await _earlier(client, channel, delivery) if uncertain else None
    if ts is None:
        metadata = {
            "event_type": CARD_METADATA_TYPE,
            "event_payload": {"delivery": delivery.id, "run": delivery.run_id},
        }
        posted = await client.chat_postMessage(channel=channel, blocks=blocks, text=text, metadata=metadata)
        ts = str(posted["ts"])
    await store.card_posted(delivery.run_id, SlackThread(channel_id=channel, thread_ts=ts).thread or "")


async def _earlier(client: AsyncWebClient, channel: str, delivery: Delivery) -> str | None:
    resp = await client.conversations_history(channel=channel, include_all_metadata=True, limit=100)
    for message in resp.get("messages") or []:
        meta = message.get("metadata") or {}
        payload = meta.get("event_payload") or {}
        if meta.get("event_type") == CARD_METADATA_TYPE and payload.get("delivery") == delivery.id:
            return str(message["ts"])
    return None


async def tell_not_started(client: AsyncWebClient, state: RunState, channel: str, message: NotStarted) -> None:
    """Tell the requester, privately in the channel, that the run's card could not be posted (and that the
    run did not start, when it was stopped for it); in a direct message when the channel refuses even that."""
    error = escaped(message.error or "unknown error", 200)
    if message.stopped:
        text = messages.NOT_STARTED.format(error=error, run=state.id, task=escaped(state.task, 300))
    else:
        text = messages.CARD_NOT_POSTED.format(error=error, run=state.id, status=state.status)
    blocks = [section(text)]
    try:
        await client.chat_postEphemeral(channel=channel, user=state.requester, text=text, blocks=blocks)
    except SlackApiError as exc:
        error_code = str(exc.response.get("error") or "")
        if exc.response.status_code >= 500 or error_code in _TRY_AGAIN:
            raise  # Slack is not answering: the outbox tries again
        await client.chat_postMessage(channel=state.requester, text=text, blocks=blocks)  # e.g. not in the channel
