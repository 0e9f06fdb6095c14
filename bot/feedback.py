"""The feedback modal ("request changes", "not what I meant"): check the text, then apply it."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from agent.models import Correct
from agent.usecases import INTENTS
from blocks import ids
from bot import messages
from bot.decisions import decide, read_and_apply, tell_outcome
from bot.deps import Deps
from bot.intake import read_before_ack
from bot.payloads import ViewSubmission
from bot.replies import ephemeral


def register(app: AsyncApp, deps: Deps) -> None:
    async def on_feedback(ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        submission = await read_before_ack(ack, client, ViewSubmission, body, "feedback form")
        if submission is None:
            return
        view = submission.view
        feedback = (view.value(ids.FEEDBACK_BLOCK, ids.FEEDBACK_ACTION) or "").strip()
        if not feedback:
            await ack(response_action="errors", errors={ids.FEEDBACK_BLOCK: messages.EMPTY_FEEDBACK})
            return
        if len(feedback) > 3000:
            error = messages.FEEDBACK_TOO_LONG.format(length=len(feedback))
            await ack(response_action="errors", errors={ids.FEEDBACK_BLOCK: error})
            return
        await ack()
        intent = view.value(ids.INTENT_BLOCK, ids.INTENT_ACTION) or "auto"
        meta = view.metadata()
        deps.spawn(apply_feedback(deps, client, submission.user.id, meta, intent, feedback), name="view:feedback")

    app.view(ids.FEEDBACK_MODAL)(on_feedback)


async def apply_feedback(
    deps: Deps, client: AsyncWebClient, user: str, meta: dict[str, str], intent: str, feedback: str
) -> None:
    """A chosen intent applies as given; ``auto`` has Tandem read the feedback first."""
    channel = meta.get("channel") or None
    chosen = next((i for i in INTENTS if i == intent), None)
    if "override" in meta:  # "Not what I meant": applies to whatever the run waits for now
        outcome = await deps.usecases.override(meta["override"], feedback, user, chosen)
        await tell_outcome(deps, client, meta["override"], user, channel, outcome)
        return
    review_id = meta.get("review") or ""
    record = await deps.store.get_review(review_id)
    if record is None:
        await ephemeral(client, channel, user, messages.UNKNOWN_REVIEW)
        return
    if chosen is not None:
        decision = Correct(intent=chosen, target_step=record.step, feedback=feedback)
        await decide(deps, client, review_id, decision, user, channel)
        return
    # "Request changes" never approves
    await read_and_apply(deps, client, record.run_id, review_id, feedback, user, channel, rejecting=True)
