"""The ``/tandem`` slash command: a task starts a run; a subcommand lists, shows, cancels, shows rules
or lessons, or reports."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from agent.card_view import waiting_on
from agent.commands import MIN_PREFIX, NoSuchRun, RunStatus
from agent.decision_lines import decision_lines
from agent.policy import SafetyPolicy
from agent.usecases import Applied, NotApplied
from blocks.help import help_blocks, list_blocks, status_blocks
from blocks.lessons import lessons_blocks
from blocks.rules import rules_blocks
from blocks.text import Blocks, escape, section
from bot import messages
from bot.approvers import approvers
from bot.decisions import tell
from bot.deps import Deps
from bot.intake import read_before_ack
from bot.origin import SlackThread
from bot.payloads import SlashCommand
from bot.replies import ephemeral
from bot.reports import channel_report
from bot.runs import run_rows

SUBCOMMANDS = ("help", "list", "status", "cancel", "rules", "lessons", "report")
COMMAND = "/tandem"


@dataclass(frozen=True)
class Words:
    """What ``/tandem`` (or an @-mention) was asked: help, a subcommand, a task, or one word that is none."""

    kind: Literal["help", "unknown", "subcommand", "task"]
    word: str = ""
    rest: str = ""
    text: str = ""


def read_words(typed: str) -> Words:
    """One reading of the words after ``/tandem`` or ``@Tandem``, so both do the same thing."""
    text = " ".join(typed.split())
    word, _, rest = text.partition(" ")
    word = word.lower()
    if not text or word == "help":
        return Words("help")
    if word in SUBCOMMANDS:
        return Words("subcommand", word, rest.strip())
    if " " not in text:
        return Words("unknown", word)
    return Words("task", text=text)


def not_a_task(word: str, example: str) -> Blocks:
    """One word that is no command: say how to start a run instead, then the help."""
    return [section(messages.UNKNOWN_SUBCOMMAND.format(word=escape(word), example=example)), *help_blocks()]


def register(app: AsyncApp, deps: Deps) -> None:
    async def on_command(ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        cmd = await read_before_ack(ack, client, SlashCommand, body, "/tandem command", say_in_ack=True)
        if cmd is None:
            return
        words = read_words(cmd.text)
        if words.kind == "help":
            await ack(blocks=help_blocks(), text="Tandem help")
            return
        if words.kind == "unknown":
            await ack(blocks=not_a_task(words.word, COMMAND), text="Tandem help")
            return
        await ack()
        answer(deps, client, cmd, words)

    app.command(COMMAND)(on_command)


def answer(deps: Deps, client: AsyncWebClient, cmd: SlashCommand, words: Words) -> None:
    """Start the subcommand's or the task's work in the background (help and unknown words are answered)."""
    if words.kind == "subcommand":
        deps.spawn(subcommand(deps, client, cmd, words.word, words.rest), name=f"command:{words.word}")
    elif words.kind == "task":
        deps.spawn(start_run(deps, client, cmd, words.text), name="command:start")


async def start_run(deps: Deps, client: AsyncWebClient, cmd: SlashCommand, task: str) -> None:
    """Start the run in this channel (also for an @-mention): its card, then its thread, come from the outbox."""
    outcome = await deps.usecases.start(task, cmd.user_id, SlackThread(channel_id=cmd.channel_id))
    if isinstance(outcome, NotApplied):
        await ephemeral(
            client, cmd.channel_id, cmd.user_id, messages.STARTING_FAILED.format(error=escape(outcome.message))
        )


async def subcommand(deps: Deps, client: AsyncWebClient, cmd: SlashCommand, word: str, arg: str) -> None:
    usecases = deps.usecases
    channel, user = cmd.channel_id, cmd.user_id
    if word == "list":
        listed = await usecases.list_runs(user, channel)
        open_rows = await run_rows(deps, client, listed.runs)
        mine = [row for row in open_rows if row.id in listed.waiting_on_asker]
        await ephemeral(client, channel, user, blocks=list_blocks(open_rows, mine))
        return
    if word == "rules":
        await ephemeral(client, channel, user, blocks=rules_blocks((await usecases.rule_list(channel)).rules))
        return
    if word == "lessons":
        await ephemeral(client, channel, user, blocks=lessons_blocks((await usecases.lesson_list(channel)).lessons))
        return
    if word == "report":
        await ephemeral(client, channel, user, blocks=await channel_report(deps, channel, arg))
        return
    if not arg:
        await ephemeral(client, channel, user, f"Say which run: `/tandem {word} <run>`.")
        return
    unknown = messages.UNKNOWN_RUN.format(run=escape(arg[:40]), min=MIN_PREFIX)
    if word == "status":
        match await usecases.status(arg, channel):
            case RunStatus(state=state, events=events):
                await ephemeral(
                    client,
                    channel,
                    user,
                    blocks=status_blocks(
                        state,
                        decision_lines(list(events)),
                        approvers=approvers(deps.config),
                        waiting_on=waiting_on(state, SafetyPolicy(deps.config)),
                    ),
                )
            case NoSuchRun():
                await ephemeral(client, channel, user, unknown)
        return
    outcome = await usecases.cancel_named(arg, channel, user, "cancelled with /tandem cancel")
    if isinstance(outcome, NoSuchRun):
        await ephemeral(client, channel, user, unknown)
    elif isinstance(outcome, Applied):
        await ephemeral(client, channel, user, messages.CANCELLED.format(run=outcome.state.id))
    else:  # what did not take effect is worded as for a click (one place for every outcome)
        await tell(client, channel, user, outcome)
