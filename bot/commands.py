"""The ``/tandem`` slash command: a task starts a run; a subcommand lists, shows, cancels, shows rules
or reports."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from agent.errors import NotAllowed, TandemError
from blocks.help import help_blocks, list_blocks, status_blocks
from blocks.rules import rules_blocks
from blocks.text import mention, mention_group, section
from bot import messages
from bot.channel import card_placeholder
from bot.deps import Deps
from bot.intake import read_before_ack
from bot.payloads import SlashCommand
from bot.render import decision_lines
from bot.replies import ephemeral
from bot.reports import channel_report
from bot.runs import open_runs, run_row

SUBCOMMANDS = ("help", "list", "status", "cancel", "rules", "report")
MIN_PREFIX = 4
COMMAND = "/tandem"


def register(app: AsyncApp, deps: Deps) -> None:
    async def on_command(ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        cmd = await read_before_ack(ack, client, SlashCommand, body, "/tandem command", say_in_ack=True)
        if cmd is None:
            return
        text = " ".join(cmd.text.split())
        word, _, rest = text.partition(" ")
        word = word.lower()
        if not text or word == "help":
            await ack(blocks=help_blocks(), text="Tandem help")
            return
        if " " not in text and word not in SUBCOMMANDS:
            blocks = [section(messages.UNKNOWN_SUBCOMMAND.format(word=word)), *help_blocks()]
            await ack(blocks=blocks, text="Tandem help")
            return
        await ack()
        if word in SUBCOMMANDS:
            deps.spawn(subcommand(deps, client, cmd, word, rest.strip()), name=f"command:{word}")
        else:
            deps.spawn(start_run(deps, client, cmd, text), name="command:start")

    app.command(COMMAND)(on_command)


async def start_run(deps: Deps, client: AsyncWebClient, cmd: SlashCommand, task: str) -> None:
    """Post the run card, then start the run in the card's thread (also used by an @-mention)."""
    card = await client.chat_postMessage(
        channel=cmd.channel_id, blocks=card_placeholder(task, cmd.user_id), text=f"Tandem: {task}"
    )
    where = {"channel": cmd.channel_id, "thread_ts": str(card["ts"])}
    try:
        await deps.runtime.start(task, cmd.user_id, channel=where)
    except TandemError as exc:
        await ephemeral(client, cmd.channel_id, cmd.user_id, messages.STARTING_FAILED.format(error=exc))


async def subcommand(deps: Deps, client: AsyncWebClient, cmd: SlashCommand, word: str, arg: str) -> None:
    store = deps.store
    channel, user = cmd.channel_id, cmd.user_id
    if word == "list":
        groups = await deps.directory.groups_of(user)
        states = await open_runs(store, channel=channel)
        open_rows = [run_row(s) for s in states]
        mine = [run_row(s) for s in states if deps.runtime.safety.waits_on(s, user, groups)]
        await ephemeral(client, channel, user, blocks=list_blocks(open_rows, mine))
        return
    if word == "rules":
        await ephemeral(client, channel, user, blocks=rules_blocks(await store.rules(channel)))
        return
    if word == "report":
        await ephemeral(client, channel, user, blocks=await channel_report(deps, channel, arg))
        return
    if not arg:
        await ephemeral(client, channel, user, f"Say which run: `/tandem {word} <run>`.")
        return
    run_id = await resolve(deps, arg, channel)
    if run_id is None:
        await ephemeral(client, channel, user, messages.UNKNOWN_RUN.format(run=arg, min=MIN_PREFIX))
        return
    if word == "status":
        state, _ = await store.load(run_id)
        lines = decision_lines(await store.events(run_id))
        await ephemeral(client, channel, user, blocks=status_blocks(state, lines))
    elif word == "cancel":
        try:
            groups = await deps.directory.groups_of(user)
            await deps.runtime.cancel(run_id, user, "cancelled with /tandem cancel", groups=groups)
        except NotAllowed as exc:
            await ephemeral(client, channel, user, exc.refusal.describe(user=mention, group=mention_group))
        except TandemError as exc:
            await ephemeral(client, channel, user, str(exc))
        else:
            await ephemeral(client, channel, user, messages.CANCELLED.format(run=run_id))


async def resolve(deps: Deps, prefix: str, channel: str) -> str | None:
    """The run of this channel a (possibly shortened, possibly back-quoted) id names, if exactly one.
    A run of another channel is not found from here; a prefix needs at least ``MIN_PREFIX`` characters."""
    prefix = prefix.strip("`")
    if len(prefix) < MIN_PREFIX:
        return None
    matches = []
    for run_id in await deps.store.find(prefix):
        state, _ = await deps.store.load(run_id)
        if deps.runtime.safety.may_see(state, channel):
            matches.append(run_id)
    return matches[0] if len(matches) == 1 else (prefix if prefix in matches else None)
