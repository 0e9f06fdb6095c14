"""Lessons in Slack: the Forget button (on a plan review and under ``/tandem lessons``)."""

from __future__ import annotations

import json
import logging
from typing import assert_never

import aiohttp
from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook.async_client import AsyncWebhookClient

from agent.usecases import LessonForgotten, NotApplied, Refused
from blocks import ids
from blocks.lessons import lessons_blocks
from blocks.text import context, escape, mention
from bot import messages
from bot.deps import Deps
from bot.intake import on_click
from bot.payloads import BlockActions
from bot.replies import ephemeral

log = logging.getLogger("tandem.bot")


def register(app: AsyncApp, deps: Deps) -> None:
    @on_click
    async def on_forget_lesson(click: BlockActions, client: AsyncWebClient) -> None:
        lesson_id, run_id = _value(click.action.value or "")
        # a run's review or card: answer in its thread (the card is the thread's first message)
        where = (click.channel_id, click.thread_ts or (click.message_ts if run_id else None))
        work = forget(deps, client, lesson_id, run_id, click.user.id, where, click.response_url)
        deps.spawn(work, name="lesson")

    app.action(ids.FORGET_LESSON)(on_forget_lesson)


def _value(raw: str) -> tuple[str, str | None]:
    """``{"lesson": id, "run": id}`` as the button carries it; anything else names no lesson."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return "", None
    if not isinstance(data, dict):
        return "", None
    run = data.get("run")
    return str(data.get("lesson") or ""), str(run) if run else None


async def forget(
    deps: Deps,
    client: AsyncWebClient,
    lesson_id: str,
    run_id: str | None,
    user: str,
    where: tuple[str | None, str | None],
    listing: str | None = None,
) -> None:
    """Stop using a lesson of this channel, where the policy lets ``user`` (see ``SafetyPolicy.may_forget``).
    Forgotten from a run's message, the run's thread says so (from the outbox); from ``/tandem lessons``
    (``listing``: its response_url), the list is shown again without it; otherwise ``user`` is told where
    they clicked."""
    channel, thread = where
    outcome = await deps.usecases.forget_lesson(lesson_id, user, channel or "", run_id=run_id)
    match outcome:
        case LessonForgotten(run=str()):
            pass
        case LessonForgotten(lesson=lesson):
            line = messages.LESSON_FORGOTTEN.format(line=escape(lesson.line))
            if listing is None or not await _relist(deps, listing, channel or "", line):
                await ephemeral(client, channel, user, line, thread_ts=thread)
        case Refused(refusal=refusal):
            author = refusal.users[0] if refusal.users else ""
            line = messages.LESSON_NOT_YOURS.format(user=mention(author))
            await ephemeral(client, channel, user, line, thread_ts=thread)
        case NotApplied():
            await ephemeral(client, channel, user, messages.UNKNOWN_LESSON, thread_ts=thread)
        case _:
            assert_never(outcome)


async def _relist(deps: Deps, listing: str, channel: str, line: str) -> bool:
    """Replace the ``/tandem lessons`` list the click came from with the list as it is now; False if Slack
    would not take it (the response_url expired), so the caller says so another way."""
    blocks = [context(line), *lessons_blocks(await deps.usecases.lessons(channel))]
    try:
        sent = await AsyncWebhookClient(listing).send(text=line, blocks=blocks[:50], replace_original=True)
    except (aiohttp.ClientError, TimeoutError) as exc:
        log.warning("could not show the lessons list again: %s", type(exc).__name__)
        return False
    return sent.status_code == 200
