"""Messages to the bot: a mention (or a DM) with a task starts a run; a few words are commands;
a reply in a run's thread is read by the same reader as Slack's.

Feishu re-pushes an event until it is answered: each is kept once by its ``event_id`` in the inbox
(:mod:`feishu.inbox`) and answered at once; the work runs in the background.
"""

from __future__ import annotations

import logging
from typing import assert_never

from agent.commands import MIN_PREFIX, NoSuchRun, RunStatus
from agent.follow_up import Unchanged, follow_up
from agent.inbox import settled_now
from agent.refusal import Refusal
from agent.usecases import (
    AlreadyDecided,
    Answered,
    Applied,
    Asked,
    LessonForgotten,
    NeedsButton,
    NotApplied,
    Outcome,
    Refused,
)
from feishu import messages, zh
from feishu.api import FeishuError
from feishu.cards import line_card
from feishu.deps import FeishuDeps
from feishu.elements import Card
from feishu.lessons import lessons_card
from feishu.listing import list_text, status_text
from feishu.origin import FeishuChat
from feishu.payloads import MessageEvent
from feishu.report import chat_report
from feishu.rules import rules_text
from feishu.wording import Lang, escape, lang_of, prose, who

log = logging.getLogger("tandem.feishu")

SUBCOMMANDS = ("help", "list", "status", "cancel", "rules", "report", "lessons")
ALIASES = {
    "报告": "report",
    "帮助": "help",
    "列表": "list",
    "状态": "status",
    "取消": "cancel",
    "规则": "rules",
    "经验": "lessons",
}
"""Words a person may write in Chinese instead."""


def on_message(deps: FeishuDeps, event: MessageEvent) -> None:
    """Do the event's work after the answer."""
    deps.spawn(handle_message(deps, event), name="feishu:message")


async def handle_message(deps: FeishuDeps, event: MessageEvent) -> None:
    received = event.event
    message, user = received.message, received.sender.sender_id.open_id
    if received.sender.sender_type != "user" or not user:
        return
    if message.thread_root is not None:
        thread = FeishuChat(chat_id=message.chat_id, root_id=message.thread_root).thread or ""
        run_id = await deps.store.run_for_thread(thread)
        if run_id is not None:
            await thread_reply(deps, event, run_id)
            return
    if message.chat_type != "p2p" and not await _mentions_bot(deps, event):
        return
    text = message.text
    word, _, rest = text.partition(" ")
    word = ALIASES.get(word, word.lower())
    alone = ("list", "rules", "report", "lessons")  # words that need no run
    if not text or word == "help" or (word in SUBCOMMANDS and " " not in text and word not in alone):
        helped = messages.HELP_ZH if lang_of(text) == "zh" else messages.HELP
        await tell(deps, event, helped if word in ("", "help") else messages.WHICH_RUN.format(word=word))
    elif word in SUBCOMMANDS:
        await subcommand(deps, event, word, rest.strip())
    else:
        await settled_now()  # a replay must never start the run a second time
        await start_run(deps, event, text)


async def _mentions_bot(deps: FeishuDeps, event: MessageEvent) -> bool:
    mentioned = {m.id.open_id for m in event.event.message.mentions}
    if not mentioned:
        return False
    try:
        return await deps.bot_open_id() in mentioned
    except FeishuError as exc:
        log.warning("could not learn the bot's open_id (%s): taking any mention as one of the bot", exc)
        return True


async def start_run(deps: FeishuDeps, event: MessageEvent, task: str) -> None:
    """Start the run in this chat: its card, then its thread, come from the outbox."""
    message, user = event.event.message, event.event.sender.sender_id.open_id
    outcome = await deps.usecases.start(task, user, FeishuChat(chat_id=message.chat_id))
    if isinstance(outcome, NotApplied):
        await tell(deps, event, messages.STARTING_FAILED.format(error=escape(outcome.message)))


async def subcommand(deps: FeishuDeps, event: MessageEvent, word: str, arg: str) -> None:
    chat, user = event.event.message.chat_id, event.event.sender.sender_id.open_id
    usecases = deps.usecases
    if word == "list":
        await tell(deps, event, list_text(await usecases.list_runs(user, chat), lang_of(event.event.message.text)))
        return
    if word == "report":
        answer = await chat_report(deps, chat, arg, lang_of(event.event.message.text))
        await (tell(deps, event, answer) if isinstance(answer, str) else show(deps, event, answer))
        return
    if word == "rules":
        await tell(deps, event, await rules_text(usecases, chat, user, arg, lang_of(event.event.message.text)))
        return
    if word == "lessons":
        if arg.split(" ", 1)[0].lower() == "forget":
            await tell(deps, event, await forget_text(deps, chat, user, arg.partition(" ")[2]))
        else:
            listed = await usecases.lesson_list(chat)
            await show(deps, event, lessons_card(listed.lessons, lang_of(event.event.message.text)))
        return
    unknown = messages.UNKNOWN_RUN.format(run=escape(arg[:40]), min=MIN_PREFIX)
    if word == "status":
        shown = await usecases.status(arg, chat)
        await tell(deps, event, status_text(shown) if isinstance(shown, RunStatus) else unknown)
        return
    outcome = await usecases.cancel_named(arg, chat, user, "cancelled with the cancel command")
    if isinstance(outcome, Applied):
        text = messages.CANCELLED.format(run=outcome.state.id)
    else:
        text = unknown if isinstance(outcome, NoSuchRun) else said(outcome)
    await tell(deps, event, text)


async def forget_text(deps: FeishuDeps, chat: str, user: str, lesson_id: str) -> str:
    """``lessons forget ID``: stop using a lesson of this chat (the list's Forget button does the same)."""
    if not lesson_id.strip():
        return messages.FORGET_WHICH
    return said(await deps.usecases.forget_lesson(lesson_id.strip(), user, chat))


async def thread_reply(deps: FeishuDeps, event: MessageEvent, run_id: str) -> None:
    user = event.event.sender.sender_id.open_id
    state, _ = await deps.store.load(run_id)
    text = event.event.message.text
    if state.finished:  # its thread stays open: a correction reopens it
        answer = await follow_up(deps.usecases, run_id, text, user)
        if not isinstance(answer, Applied):
            await tell(deps, event, prose(answer.message) if isinstance(answer, Unchanged) else said(answer))
        return
    if state.pending is None:  # "取消吧" while it works stops it
        stopped = await deps.usecases.stop_asked(run_id, text, user)
        if stopped is not None:
            if not isinstance(stopped, Applied | Asked):
                await tell(deps, event, said(stopped, lang_of(state.task)))
            return
        await tell(deps, event, messages.NOTHING_PENDING.format(run=run_id, status=state.status.replace("_", " ")))
        return
    outcome = await deps.usecases.say(run_id, text, user, review_id=state.pending.id)
    if not isinstance(outcome, Applied | Asked | Answered):  # an answer was posted in the thread
        await tell(deps, event, said(outcome, lang_of(state.task)))


def refusal_text(refusal: Refusal, lang: Lang = "en") -> str:
    """Why nothing changed, naming who may, in the run's language where the words are known."""
    chinese = zh.refusal(refusal) if lang == "zh" else None
    return chinese or refusal.describe(user=who, group=lambda g: f"members of {who(g)}")


def said(outcome: Outcome | LessonForgotten, lang: Lang = "en") -> str:
    """What a person hears about an outcome that did not take effect (markdown)."""
    match outcome:
        case LessonForgotten(lesson=lesson):
            return messages.LESSON_FORGOTTEN.format(line=escape(lesson.line))
        case Applied() | Asked() | Answered():
            return ""
        case Refused(refusal=refusal):
            return refusal_text(refusal, lang)
        case AlreadyDecided(by=by, verb=verb, message=message):
            return messages.ALREADY.format(verb=verb, who=who(by)) if by else prose(message)
        case NeedsButton(message=message) | NotApplied(message=message):
            return messages.FAILED.format(error=prose(message))
        case _:
            assert_never(outcome)


async def tell(deps: FeishuDeps, event: MessageEvent, text: str) -> None:
    """Answer privately: an ephemeral card in a group, the direct chat itself in a DM."""
    await show(deps, event, line_card(text, lang_of(event.event.message.text)))


async def show(deps: FeishuDeps, event: MessageEvent, card: Card) -> None:
    """A card only the asker sees: ephemeral in a group, the direct chat itself in a DM."""
    message, user = event.event.message, event.event.sender.sender_id.open_id
    try:
        if message.chat_type == "p2p":
            await deps.api.send_card(message.chat_id, card)
        else:
            await deps.api.ephemeral(message.chat_id, user, card)
    except FeishuError as exc:
        log.warning("could not answer %s in %s: %s", user[:40], message.chat_id[:40], exc)
