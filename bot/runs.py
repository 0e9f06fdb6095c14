"""Run rows for lists (``/tandem list``, the Home tab): what each run waits on, for whom, and a link to its thread."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from agent.card_view import waiting_for
from agent.models import RunState
from agent.outcome import outcome
from blocks.help import RunRow
from bot.deps import Deps
from bot.origin import SlackThread

log = logging.getLogger("tandem.bot")


def run_row(state: RunState, link: str | None = None) -> RunRow:
    return RunRow(
        id=state.id,
        task=state.task,
        status=state.status,
        requester=state.requester,
        updated_at=state.updated_at,
        waiting_on=waiting_for(state.pending) if state.pending else None,
        link=link,
        outcome=ended.label() if (ended := outcome(state)) is not None else None,
    )


async def permalink(deps: Deps, client: AsyncWebClient, state: RunState) -> str | None:
    """A link to the run's thread (its card), from ``chat.getPermalink``; kept, since it never changes."""
    where = state.origin
    if not isinstance(where, SlackThread) or where.thread_ts is None:
        return None
    if state.id in deps.links:
        return deps.links[state.id]
    try:
        found = await client.chat_getPermalink(channel=where.channel_id, message_ts=where.thread_ts)
    except (SlackApiError, aiohttp.ClientError, TimeoutError) as exc:
        log.info("no permalink for run %s: %s", state.id, type(exc).__name__)
        return None
    link = found.get("permalink")
    if isinstance(link, str):
        deps.links[state.id] = link
        return link
    return None


async def run_rows(deps: Deps, client: AsyncWebClient, states: Sequence[RunState]) -> list[RunRow]:
    return [run_row(s, await permalink(deps, client, s)) for s in states]
