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
        deps.spawn(forget(deps, client, lesson_id, run_id, click.user.id, click.channel_id), name="lesson")

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
    deps: Deps, client: AsyncWebClient, lesson_id: str, run_id: str | None, user: str, channel: str | None
) -> None:
    """Stop using a lesson of this channel, where the policy lets ``user`` (see ``SafetyPolicy.may_forget``)."""
    outcome = await deps.usecases.forget_lesson(lesson_id, user, channel or "", run_id=run_id)
    match outcome:
        case LessonForgotten(lesson=lesson):
            await ephemeral(client, channel, user, messages.LESSON_FORGOTTEN.format(line=escape(lesson.line)))
        case Refused(refusal=refusal):
            author = refusal.users[0] if refusal.users else ""
            await ephemeral(client, channel, user, messages.LESSON_NOT_YOURS.format(user=mention(author)))
        case NotApplied():
            await ephemeral(client, channel, user, messages.UNKNOWN_LESSON)
        case _:
            assert_never(outcome)
