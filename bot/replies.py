"""Telling one person something only they see (an ephemeral message)."""

from __future__ import annotations

import logging

from slack_sdk.web.async_client import AsyncWebClient

from blocks.text import Blocks, section

log = logging.getLogger("tandem.bot")


async def ephemeral(
    client: AsyncWebClient, channel: str | None, user: str, text: str = "", *, blocks: Blocks | None = None
) -> None:
    if not channel:
        log.info("no channel to tell %s: %s", user, text)
        return
    await client.chat_postEphemeral(channel=channel, user=user, text=text or "Tandem", blocks=blocks or [section(text)])
