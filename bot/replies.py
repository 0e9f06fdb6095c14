"""Telling one person something only they see (an ephemeral message)."""

from __future__ import annotations

import logging

from slack_sdk.web.async_client import AsyncWebClient

from blocks.text import Blocks, section

log = logging.getLogger("tandem.bot")


async def ephemeral(
    client: AsyncWebClient,
    channel: str | None,
    user: str,
    text: str = "",
    *,
    blocks: Blocks | None = None,
    thread_ts: str | None = None,
) -> None:
    """Tell ``user`` privately, in ``thread_ts``'s thread when given (where they clicked or replied)."""
    if not channel:
        log.info("no channel to tell %s: %s", user, text)
        return
    blocks = blocks or [section(text)]
    if thread_ts:
        await client.chat_postEphemeral(
            channel=channel, user=user, text=text or "Tandem", blocks=blocks, thread_ts=thread_ts
        )
        return
    await client.chat_postEphemeral(channel=channel, user=user, text=text or "Tandem", blocks=blocks)
