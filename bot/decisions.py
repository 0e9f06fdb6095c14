"""Applying a person's decision or free text to a run, shared by buttons, modals and thread replies.

The use cases (``agent.usecases``) decide; this module tells the person, in an
ephemeral message, whatever did not take effect (unknown review, not allowed,
already decided, a gate that needs its button).
"""

from __future__ import annotations

from typing import assert_never

from slack_sdk.web.async_client import AsyncWebClient

from agent.follow_up import Unchanged, follow_up
from agent.models import Decision, Reading
from agent.usecases import AlreadyDecided, Answered, Applied, Asked, NeedsButton, NotApplied, Outcome, Refused
from blocks.decided import already_decided
from blocks.text import Blocks, escape, mention, mention_group
from bot import messages
from bot.deps import Deps
from bot.origin import SlackThread
from bot.payloads import BlockActions
from bot.replies import ephemeral
from bot.review_posts import review_key


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
    outcome = await deps.usecases.decide(review_id, decision, user, reading=reading)
    await tell_outcome(deps, client, review_id, user, channel, outcome)
    return isinstance(outcome, Applied)


async def tell_outcome(
    deps: Deps, client: AsyncWebClient, review_id: str, user: str, channel: str | None, outcome: Outcome
) -> None:
    """:func:`tell`, in the thread of the run of ``review_id`` (what took effect shows through the outbox)."""
    if isinstance(outcome, Applied | Asked | Answered):
        return
    record = await deps.store.get_review(review_id)
    thread = await thread_of(deps, record.run_id, channel) if record is not None else None
    await tell(client, channel, user, outcome, thread)


async def read_and_apply(
    deps: Deps,
    client: AsyncWebClient,
    run_id: str,
    review_id: str | None,
    text: str,
    user: str,
    channel: str | None,
    *,
    rejecting: bool = False,
) -> None:
    """Read free text as a decision and apply it; when unsure, ask with one button per reading.
    ``rejecting``: it came with "Request changes", so it never approves."""
    outcome = await deps.usecases.say(run_id, text, user, review_id=review_id, rejecting=rejecting)
    if not isinstance(outcome, Applied | Asked | Answered):  # an answer was posted in the thread
        await tell(client, channel, user, outcome, await thread_of(deps, run_id, channel))


async def follow_up_and_tell(
    deps: Deps, client: AsyncWebClient, run_id: str, text: str, user: str, channel: str | None
) -> None:
    """A reply in a finished run's thread: a correction reopens the run (shown through the outbox);
    whatever changed nothing is said privately, in the thread."""
    outcome = await follow_up(deps.usecases, run_id, text, user)
    thread = await thread_of(deps, run_id, channel)
    match outcome:
        case Unchanged(message=message):
            await ephemeral(client, channel, user, escape(message), thread_ts=thread)
        case Applied() | Refused() | NotApplied():
            await tell(client, channel, user, outcome, thread)
        case _:
            assert_never(outcome)


async def thread_of(deps: Deps, run_id: str, channel: str | None) -> str | None:
    """The run's thread, where a private answer about it belongs (when it lives in ``channel``)."""
    state, _ = await deps.store.load(run_id)
    where = state.origin
    return where.thread_ts if isinstance(where, SlackThread) and where.channel_id == channel else None


async def tell(
    client: AsyncWebClient, channel: str | None, user: str, outcome: Outcome, thread_ts: str | None = None
) -> None:
    """Say privately (in the run's thread) what did not take effect; what did shows through the outbox."""
    blocks: Blocks | None = None
    match outcome:
        case Applied() | Asked() | Answered():
            return
        case Refused(refusal=refusal):
            text = refusal.describe(user=mention, group=mention_group)
        case AlreadyDecided(by=by, at=at, verb=verb, message=message):
            text = escape(message) if by is None else f"Already {verb} by {mention(by)}."
            blocks = already_decided(by, at, verb) if by is not None else None
        case NeedsButton(message=message):
            text = messages.FAILED.format(error=escape(message))
        case NotApplied(why="unknown_review"):
            text = messages.UNKNOWN_REVIEW
        case NotApplied(why="unknown_rule"):
            text = messages.UNKNOWN_RULE
        case NotApplied(message=message):
            text = messages.FAILED.format(error=escape(message))
        case _:
            assert_never(outcome)
    await ephemeral(client, channel, user, text, blocks=blocks, thread_ts=thread_ts)
