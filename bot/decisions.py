"""Applying a person's decision or free text to a run, shared by buttons, modals and thread replies.

Whatever did not take effect (unknown review, not allowed, already decided) is
told to the person in an ephemeral message.
"""

from __future__ import annotations

from slack_sdk.web.async_client import AsyncWebClient

from agent.errors import NotAllowed, StaleDecision, TandemError
from agent.messages import decided_verb
from agent.models import Decision, Reading
from blocks.decided import already_decided
from blocks.text import mention, mention_group
from bot import messages
from bot.channel import review_key
from bot.deps import Deps
from bot.payloads import BlockActions
from bot.replies import ephemeral


async def decide_click(
    deps: Deps, client: AsyncWebClient, click: BlockActions, decision: Decision, review_id: str | None = None
) -> bool:
    """:func:`decide` for a button click; ``review_id`` defaults to the button's value."""
    review_id = review_id if review_id is not None else click.action.value or ""
    if not await decide(deps, client, review_id, decision, click.user.id, click.channel_id):
        return False  # a refused or stale click stores nothing
    record = await deps.store.get_review(review_id)
    key = review_key(review_id)
    if record is not None and click.message and click.channel_id and await deps.store.message(key) is None:
        # The process that posted this review died before noting where: the click tells us.
        await deps.store.save_message(key, record.run_id, click.channel_id, click.message.ts, click.message.blocks)
    return True


async def decide(
    deps: Deps,
    client: AsyncWebClient,
    review_id: str,
    decision: Decision,
    user: str,
    channel: str | None,
    *,
    reading: Reading | None = None,
) -> bool:
    """Apply a decision; tell the person (ephemeral) when it did not take effect."""
    record = await deps.store.get_review(review_id)
    if record is None:
        await ephemeral(client, channel, user, messages.UNKNOWN_REVIEW)
        return False
    try:
        groups = await deps.directory.groups_of(user)
        await deps.runtime.decide(record.run_id, decision, user, review_id=review_id, groups=groups, reading=reading)
    except NotAllowed as exc:
        await ephemeral(client, channel, user, exc.refusal.describe(user=mention, group=mention_group))
        return False
    except StaleDecision as exc:
        if exc.decided_by is None:
            await ephemeral(client, channel, user, str(exc))
            return False
        answered = await deps.store.get_review(review_id)
        verb = decided_verb(answered.answer if answered else None)
        blocks = already_decided(exc.decided_by, exc.decided_at, verb)
        await ephemeral(client, channel, user, f"Already {verb} by {exc.decided_by}.", blocks=blocks)
        return False
    except TandemError as exc:
        await ephemeral(client, channel, user, messages.FAILED.format(error=exc))
        return False
    return True


async def read_and_apply(
    deps: Deps, client: AsyncWebClient, run_id: str, review_id: str | None, text: str, user: str, channel: str | None
) -> None:
    """Read free text as a decision and apply it; when unsure, ask with one button per reading.

    What people see in the thread ("Read as …", the question) is written with the decision
    itself, so a refused reply shows nothing in public.
    """
    try:
        reading, decision, review_id = await deps.runtime.read(run_id, text, review_id=review_id)
    except TandemError as exc:
        await ephemeral(client, channel, user, str(exc))
        return
    if deps.runtime.unsure(reading) and reading is not None:
        try:
            groups = await deps.directory.groups_of(user)
            await deps.runtime.clarify(run_id, review_id, reading, text, user, decision, groups=groups)
        except NotAllowed as exc:
            await ephemeral(client, channel, user, exc.refusal.describe(user=mention, group=mention_group))
        except TandemError as exc:
            await ephemeral(client, channel, user, str(exc))
        return
    await decide(deps, client, review_id, decision, user, channel, reading=reading)
