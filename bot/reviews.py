"""Buttons on a review message: approve, cancel, request changes (or reject), not what I meant, details."""

from __future__ import annotations

import json

from pydantic import BaseModel, StrictInt, ValidationError
from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from agent.models import Approve, Cancel
from blocks import ids
from blocks.evidence import evidence_modal
from blocks.modals import feedback_modal, result_details, review_details
from blocks.result_feedback import RUN_DETAILS
from blocks.text import section
from bot import messages
from bot.decisions import decide_click
from bot.deps import Deps
from bot.intake import on_click
from bot.payloads import BlockActions
from bot.replies import ephemeral

LOADING = {"type": "modal", "title": {"type": "plain_text", "text": "Details"}, "blocks": [section("Loading…")]}


class EvidenceValue(BaseModel):
    """A *Show details* button's value: ``{"run": id, "steps": [numbers]}``."""

    run: str
    steps: list[StrictInt]


def evidence_request(value: str) -> tuple[str, list[int]] | None:
    """What a *Show details* button asks for, or None if its value is malformed."""
    try:
        asked = EvidenceValue.model_validate_json(value)
    except ValidationError:
        return None
    return asked.run, asked.steps


def register(app: AsyncApp, deps: Deps) -> None:
    @on_click
    async def on_approve(click: BlockActions, client: AsyncWebClient) -> None:
        deps.spawn(decide_click(deps, client, click, Approve()), name="action:approve")

    @on_click
    async def on_cancel(click: BlockActions, client: AsyncWebClient) -> None:
        deps.spawn(decide_click(deps, client, click, Cancel(reason="")), name="action:cancel")

    @on_click
    async def on_request_changes(click: BlockActions, client: AsyncWebClient) -> None:
        # The trigger id expires in 3 s: one quick read (what the review is, for the modal's words), then the modal.
        record = await deps.store.get_review(click.action.value or "")
        meta = {"review": click.action.value or "", "channel": click.channel_id or ""}
        modal = feedback_modal(json.dumps(meta), anchor=record.anchor if record is not None else None)
        await client.views_open(trigger_id=click.trigger_id or "", view=modal)

    @on_click
    async def on_override(click: BlockActions, client: AsyncWebClient) -> None:
        # One quick read before the modal (the trigger lasts 3 s): a finished run has nothing left to correct.
        record = await deps.store.get_review(click.action.value or "")
        if record is not None:
            state, _ = await deps.store.load(record.run_id)
            if state.finished:
                text = messages.RUN_FINISHED.format(run=state.id, status=state.status)
                await ephemeral(client, click.channel_id, click.user.id, text, thread_ts=click.thread_ts)
                return
        meta = {"override": click.action.value or "", "channel": click.channel_id or ""}
        subject = "Tell Tandem what you meant; this applies to what the run is waiting for now."
        await client.views_open(
            trigger_id=click.trigger_id or "", view=feedback_modal(json.dumps(meta), subject=subject)
        )

    @on_click
    async def on_details(click: BlockActions, client: AsyncWebClient) -> None:
        opened = await client.views_open(trigger_id=click.trigger_id or "", view=LOADING)
        view_id = opened["view"]["id"]
        value = click.action.value or ""
        if value.startswith(RUN_DETAILS):  # a done run's result, shown under it in the thread (where it lives)
            done = await deps.usecases.see(value.removeprefix(RUN_DETAILS), click.channel_id)
            if done is None:
                await client.views_update(view_id=view_id, view={**LOADING, "blocks": [section(messages.NO_DETAILS)]})
                return
            await client.views_update(view_id=view_id, view=result_details(done))
            return
        record = await deps.store.get_review(value)
        if record is None:
            await client.views_update(view_id=view_id, view={**LOADING, "blocks": [section(messages.UNKNOWN_REVIEW)]})
            return
        state = await deps.usecases.see(record.run_id, click.channel_id)
        if state is None:
            await client.views_update(view_id=view_id, view={**LOADING, "blocks": [section(messages.NO_DETAILS)]})
            return
        await client.views_update(view_id=view_id, view=review_details(state, record.as_review()))

    @on_click
    async def on_evidence(click: BlockActions, client: AsyncWebClient) -> None:
        # The trigger id expires in 3 s: open the modal first, then read the run (the same rule as seeing it).
        opened = await client.views_open(trigger_id=click.trigger_id or "", view=LOADING)
        view_id = opened["view"]["id"]
        asked = evidence_request(click.action.value or "")
        state = await deps.usecases.see(asked[0], click.channel_id) if asked is not None else None
        if asked is None or state is None:
            await client.views_update(view_id=view_id, view={**LOADING, "blocks": [section(messages.NO_DETAILS)]})
            return
        await client.views_update(view_id=view_id, view=evidence_modal(state, asked[1]))

    app.action(ids.APPROVE)(on_approve)
    app.action(ids.CANCEL)(on_cancel)
    app.action(ids.REJECT)(on_request_changes)
    app.action(ids.REQUEST_CHANGES)(on_request_changes)
    app.action(ids.OVERRIDE)(on_override)
    app.action(ids.DETAILS)(on_details)
    app.action(ids.EVIDENCE)(on_evidence)
