"""👍/👎 on a finished run's result: recorded in the run's history (one vote per person; the latest counts).

Slack sends a feedback event on every click, so a vote that repeats the person's
last one is not recorded again. A vote changes nothing about the run.
"""

from __future__ import annotations

import json

from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from agent.errors import UnknownRun
from agent.models import AuditEvent
from blocks import ids
from bot.deps import Deps
from bot.intake import on_click
from bot.payloads import BlockActions
from bot.replies import ephemeral

KIND = "result_feedback"
THANKS = {"up": "Thanks: noted 👍 for this result.", "down": "Thanks: noted 👎. Say in the thread what was missing."}


def register(app: AsyncApp, deps: Deps) -> None:
    @on_click
    async def on_vote(click: BlockActions, client: AsyncWebClient) -> None:
        deps.spawn(record_vote(deps, client, click), name="action:result_feedback")

    app.action(ids.RESULT_FEEDBACK)(on_vote)


async def record_vote(deps: Deps, client: AsyncWebClient, click: BlockActions) -> None:
    try:
        value = json.loads(click.action.value or "")
        run_id, vote = str(value["run"]), str(value["vote"])
    except (ValueError, KeyError, TypeError):
        vote, run_id = "", ""
    if vote not in THANKS:
        await ephemeral(client, click.channel_id, click.user.id, "This feedback button is malformed; nothing changed.")
        return
    try:
        await deps.store.load(run_id)
        events = await deps.store.events(run_id)
    except UnknownRun:
        await ephemeral(client, click.channel_id, click.user.id, "That run is gone; nothing was recorded.")
        return
    mine = [e for e in events if e.kind == KIND and e.actor == click.user.id]
    if not mine or mine[-1].payload.get("vote") != vote:
        event = AuditEvent(at=deps.clock(), actor=click.user.id, kind=KIND, payload={"vote": vote})
        await deps.store.append_events(run_id, [event])
    await ephemeral(client, click.channel_id, click.user.id, THANKS[vote], thread_ts=click.thread_ts)
