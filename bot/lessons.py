"""Lessons in Slack: the Forget button (on a plan review and under ``/tandem lessons``)."""

from __future__ import annotations

import json
from typing import assert_never

from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from agent.usecases import LessonForgotten, NotApplied, Refused
from blocks import ids
from blocks.text import escape, mention
from bot import messages
from bot.deps import Deps
from bot.intake import on_click
from bot.payloads import BlockActions
from bot.replies import ephemeral


def register(app: AsyncApp, deps: Deps) -> None:
    @on_click
    async def on_forget_lesson(click: BlockActions, client: AsyncWebClient) -> None:
        lesson_id, run_id = _value(click.action.value or "")
        # a run's review or card: answer in its thread (the card is the thread's first message)
        where = (click.channel_id, click.thread_ts or (click.message_ts if run_id else None))
        deps.spawn(forget(deps, client, lesson_id, run_id, click.user.id, where), name="lesson")

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
) -> None:
    """Stop using a lesson of this channel, where the policy lets ``user`` (see ``SafetyPolicy.may_forget``).
    Forgotten from a run's message, the run's thread says so (from the outbox); otherwise ``user`` is told
    where they clicked."""
    channel, thread = where
    outcome = await deps.usecases.forget_lesson(lesson_id, user, channel or "", run_id=run_id)
    match outcome:
        case LessonForgotten(run=str()):
            pass
        case LessonForgotten(lesson=lesson):
            line = messages.LESSON_FORGOTTEN.format(line=escape(lesson.line))
            await ephemeral(client, channel, user, line, thread_ts=thread)
        case Refused(refusal=refusal):
            author = refusal.users[0] if refusal.users else ""
            line = messages.LESSON_NOT_YOURS.format(user=mention(author))
            await ephemeral(client, channel, user, line, thread_ts=thread)
        case NotApplied():
            await ephemeral(client, channel, user, messages.UNKNOWN_LESSON, thread_ts=thread)
        case _:
            assert_never(outcome)
