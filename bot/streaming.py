"""A model-written result streamed into a run's thread (``chat.startStream`` / ``appendStream`` /
``stopStream``): people see it arrive in pieces, and it ends with the blocks that go under it.

The stream is started only for Markdown alone (a result with a table goes as blocks). Where the API
refuses to start a stream (an older workspace, a missing scope), nothing was posted: the caller posts
the same content plainly. A stream that fails once started is deleted, so the delivery's retry posts the
result once, whole.
"""

from __future__ import annotations

import logging

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from blocks.text import Blocks
from bot.thread_post import ThreadPost

log = logging.getLogger("tandem.bot")

CHUNK = 600
"""Characters per append: a few lines at a time."""


def pieces(markdown: str, size: int = CHUNK) -> list[str]:
    """``markdown`` cut after whole lines into pieces of about ``size`` characters (a longer line alone)."""
    out: list[str] = []
    for line in markdown.splitlines(keepends=True):
        if out and len(out[-1]) + len(line) <= size:
            out[-1] += line
        else:
            out.append(line)
    return out


class Streams:
    """Streams results for one bot; learns its workspace's id once (a channel stream names its reader's team)."""

    def __init__(self, client: AsyncWebClient) -> None:
        self.client = client
        self._team: str | None = None

    async def team(self) -> str:
        if self._team is None:
            self._team = str((await self.client.auth_test())["team_id"])
        return self._team

    async def post(self, post: ThreadPost, markdown: str, below: Blocks, reader: str) -> bool:
        """Stream ``markdown`` to ``reader`` in ``post``'s thread, ending with ``below`` and the delivery's
        stamp; False (nothing posted) when the API will not start a stream."""
        first, *rest = pieces(markdown) or [""]
        try:
            started = await self.client.chat_startStream(
                channel=post.channel,
                thread_ts=post.thread_ts,
                markdown_text=first,
                recipient_user_id=reader,
                recipient_team_id=await self.team(),
            )
        except SlackApiError as exc:
            log.info("streaming refused (%s): the result is posted whole", exc.response.get("error"))
            return False
        ts = str(started["ts"])
        try:
            for piece in rest:
                await self.client.chat_appendStream(channel=post.channel, ts=ts, markdown_text=piece)
            await self.client.chat_stopStream(channel=post.channel, ts=ts, blocks=below, metadata=post.metadata())
        except SlackApiError:
            await self._drop(post.channel, ts)
            raise
        return True

    async def _drop(self, channel: str, ts: str) -> None:
        try:
            await self.client.chat_delete(channel=channel, ts=ts)
        except SlackApiError as exc:
            log.warning("a broken result stream %s stays in %s: %s", ts, channel, exc.response.get("error"))
