"""A person answering: a handoff's answer buttons, select menu and text modal, and the clarify buttons
Tandem shows when it was unsure what a reply meant."""

from __future__ import annotations

import json
import re
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from agent.models import Answer, Approve, Cancel, Correct, Decision
from agent.models.reviews import as_number
from blocks import ids
from blocks.handoff import answer_modal
from bot import messages
from bot.decisions import decide, decide_click
from bot.deps import Deps
from bot.intake import on_click, read_before_ack
from bot.payloads import BlockActions, ViewSubmission
from bot.replies import ephemeral

ANSWER_BUTTONS = re.compile(r"^tandem\.answer(\.\w+)?$")
CLARIFY_BUTTONS = re.compile(r"^tandem\.clarify(\.\w+)?$")


def answer_text_value(value: str) -> tuple[str, bool]:
    """The review id an Answer button carries, and whether its question asks for a number."""
    if not value.startswith("{"):
        return value, False
    try:
        data = json.loads(value)
        return str(data["review"]), bool(data.get("number"))
    except (ValueError, KeyError, TypeError, RecursionError):
        return "", False


def register(app: AsyncApp, deps: Deps) -> None:
    @on_click
    async def on_answer(click: BlockActions, client: AsyncWebClient) -> None:
        raw = click.action.selected_value or click.action.value or "{}"
        try:
            data = json.loads(raw)
            review_id = str(data["review"])
            answer = Answer(value=None, declined=True) if data.get("decline") is True else Answer(value=data["answer"])
        except (ValueError, KeyError, TypeError, RecursionError, AttributeError):
            await ephemeral(client, click.channel_id, click.user.id, messages.BAD_ANSWER_BUTTON)
            return
        deps.spawn(decide_click(deps, client, click, answer, review_id), name="action:answer")

    @on_click
    async def on_answer_text(click: BlockActions, client: AsyncWebClient) -> None:
        review_id, number = answer_text_value(click.action.value or "")
        meta = json.dumps({"review": review_id, "channel": click.channel_id or "", "input": "number" if number else ""})
        await client.views_open(trigger_id=click.trigger_id or "", view=answer_modal(meta, number=number))

    @on_click
    async def on_clarify(click: BlockActions, client: AsyncWebClient) -> None:
        try:
            data = json.loads(click.action.value or "{}")
            review_id, intent, text = str(data["review"]), str(data["intent"]), str(data["text"])
            step = data.get("step")
        except (ValueError, KeyError, TypeError, RecursionError):
            await ephemeral(client, click.channel_id, click.user.id, messages.BAD_ANSWER_BUTTON)
            return
        decision: Decision
        if intent == "approve":
            decision = Approve()
        elif intent == "cancel":
            decision = Cancel(reason=text)
        elif intent in ("replan", "retry_step", "refine_output"):
            decision = Correct(intent=intent, feedback=text, target_step=step if isinstance(step, int) else None)
        else:
            await ephemeral(client, click.channel_id, click.user.id, messages.BAD_ANSWER_BUTTON)
            return
        deps.spawn(decide_click(deps, client, click, decision, review_id), name="action:clarify")

    async def on_open_link(ack: AsyncAck) -> None:
        await ack()  # Slack opens the link itself; "Done" or "Decline" answers

    async def on_answer_modal(ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        submission = await read_before_ack(ack, client, ViewSubmission, body, "answer form")
        if submission is None:
            return
        text = (submission.view.value(ids.ANSWER_BLOCK, ids.ANSWER_ACTION) or "").strip()
        if not text:
            await ack(response_action="errors", errors={ids.ANSWER_BLOCK: messages.EMPTY_ANSWER})
            return
        meta = submission.view.metadata()
        if meta.get("input") == "number":
            try:
                as_number(text)
            except ValueError as exc:  # the modal stays open with what was typed
                await ack(response_action="errors", errors={ids.ANSWER_BLOCK: str(exc)})
                return
        await ack()
        decided = decide(
            deps, client, meta.get("review", ""), Answer(value=text), submission.user.id, meta.get("channel")
        )
        deps.spawn(decided, name="view:answer")

    app.action(ANSWER_BUTTONS)(on_answer)
    app.action(ids.ANSWER_SELECT)(on_answer)
    app.action(ids.ANSWER_TEXT)(on_answer_text)
    app.action(ids.OPEN_LINK)(on_open_link)
    app.action(CLARIFY_BUTTONS)(on_clarify)
    app.view(ids.ANSWER_MODAL)(on_answer_modal)
