"""👍/👎 on a finished run's result: Slack's ``feedback_buttons``, recorded by :func:`agent.votes.vote`."""

from __future__ import annotations

import json
from typing import assert_never

from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from agent.votes import NotVoted, Voted, vote
from blocks import ids
from bot.deps import Deps
from bot.intake import on_click
from bot.payloads import BlockActions
from bot.replies import ephemeral

NOT_RECORDED = {
    "malformed": "This feedback button is malformed; nothing changed.",
    "unknown_run": "That run is gone; nothing was recorded.",
}
THANKS = {"up": "Thanks: noted 👍 for this result.", "down": "Thanks: noted 👎. Say in the thread what was missing."}


def register(app: AsyncApp, deps: Deps) -> None:
    @on_click
    async def on_vote(click: BlockActions, client: AsyncWebClient) -> None:
        deps.spawn(record_vote(deps, client, click), name="action:result_feedback")

    app.action(ids.RESULT_FEEDBACK)(on_vote)


async def record_vote(deps: Deps, client: AsyncWebClient, click: BlockActions) -> None:
    try:
        value = json.loads(click.action.value or "")
        run_id, said = str(value["run"]), str(value["vote"])
    except (ValueError, KeyError, TypeError):
        run_id, said = "", ""
    outcome = await vote(deps.store, deps.clock(), run_id, said, click.user.id)
    match outcome:
        case Voted(vote=choice):
            text = THANKS[choice]
        case NotVoted(why=why):
            text = NOT_RECORDED[why]
        case _:
            assert_never(outcome)
    await ephemeral(client, click.channel_id, click.user.id, text, thread_ts=click.thread_ts)
