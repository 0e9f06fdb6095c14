"""Messages in a run's thread (read and applied to what the run waits for) and @-mentions (start a run)."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncApp, AsyncBoltContext
from slack_sdk.web.async_client import AsyncWebClient

from agent import inbox
from blocks.help import help_blocks
from bot import messages
from bot.commands import answer, not_a_task, read_words
from bot.decisions import follow_up_and_tell, read_and_apply, tell
from bot.deps import Deps
from bot.intake import on_event
from bot.origin import SlackThread
from bot.payloads import MessageEvent, SlashCommand
from bot.replies import ephemeral

EVENTS = ("message", "app_mention")
MENTION = "@Tandem"


def register(app: AsyncApp, deps: Deps) -> None:
    async def on_message(event: dict[str, Any], client: AsyncWebClient, context: AsyncBoltContext) -> None:
        # Slack sends a post that mentions the bot twice (this ``message``, and an ``app_mention``), in either
        # order; whichever comes first is the one kept (the second is a duplicate), so each does the same.
        bot = context.bot_user_id

        @on_event(MessageEvent, "message event")
        async def read(message: MessageEvent, client: AsyncWebClient) -> None:
            await posted(deps, client, message, mentions_bot=bool(bot) and f"<@{bot}>" in message.text)

        await read(event, client)

    @on_event(MessageEvent, "mention")
    async def on_mention(message: MessageEvent, client: AsyncWebClient) -> None:
        await posted(deps, client, message, mentions_bot=True)

    app.event(EVENTS[0])(on_message)
    app.event(EVENTS[1])(on_mention)


async def posted(deps: Deps, client: AsyncWebClient, message: MessageEvent, *, mentions_bot: bool) -> None:
    """A person's post: in a thread, a reply to its run; in the channel, ``@Tandem …`` (else nothing)."""
    if not message.from_a_person:
        return
    if message.thread_ts is not None and message.thread_ts != message.ts:
        await thread_reply(deps, client, message)
    elif mentions_bot:
        await mentioned(deps, client, message)


async def mentioned(deps: Deps, client: AsyncWebClient, message: MessageEvent) -> None:
    """``@Tandem …`` in a channel reads as ``/tandem …``: a task starts a run, a subcommand answers, and
    anything else says how."""
    assert message.user is not None
    if not await deps.store.claim_delivery(f"msg:{message.channel}:{message.ts}", deps.clock()):
        return
    typed = " ".join(w for w in message.text.split() if not w.startswith("<@"))
    cmd = SlashCommand(user_id=message.user, channel_id=message.channel, text=typed)
    words = read_words(typed)
    if words.kind == "help":
        await ephemeral(client, message.channel, message.user, blocks=help_blocks())
    elif words.kind == "unknown":
        await ephemeral(client, message.channel, message.user, blocks=not_a_task(words.word, MENTION))
    else:
        answer(deps, client, cmd, words)


async def thread_reply(deps: Deps, client: AsyncWebClient, message: MessageEvent) -> None:
    assert message.user is not None and message.thread_ts is not None
    run_id = await deps.store.run_for_thread(
        SlackThread(channel_id=message.channel, thread_ts=message.thread_ts).thread or ""
    )
    if run_id is None:
        return  # not a Tandem thread
    # Slack retries events, and sends both `message` and `app_mention` for one post: act once. Over HTTP
    # the inbox kept the post once by that same key (and replays it after a crash, which a claim would refuse).
    claim = f"msg:{message.channel}:{message.ts}"
    if inbox.current() is None and not await deps.store.claim_delivery(claim, deps.clock()):
        return
    state, _ = await deps.store.load(run_id)
    if state.finished:  # its thread stays open: a correction reopens it
        deps.spawn(
            follow_up_and_tell(deps, client, run_id, message.text, message.user, message.channel),
            name="thread:follow_up",
        )
        return
    if state.pending is None:  # "just cancel this" while it works stops it
        stopped = await deps.usecases.stop_asked(run_id, message.text, message.user)
        if stopped is not None:
            await tell(client, message.channel, message.user, stopped, message.thread_ts)
            return
        text = messages.NOTHING_PENDING.format(run=run_id, status=state.status.replace("_", " "))
        await client.chat_postMessage(channel=message.channel, thread_ts=message.thread_ts, text=text)
        return
    deps.spawn(
        read_and_apply(deps, client, run_id, state.pending.id, message.text, message.user, message.channel),
        name="thread:reply",
    )
