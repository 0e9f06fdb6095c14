"""Drive the real bot over HTTP from the local workspace, as people in Slack would."""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from slack_bolt.listener.async_listener_completion_handler import AsyncListenerCompletionHandler
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

from blocks import ids
from bot.settings import SlackSettings
from cli.serve import Bot, serving
from workspace import Workspace, run_workspace
from workspace.models import Message
from workspace.transport import Delivery

OPS = "C0OPS"
CARD_SETTLE = 1.0
"""Seconds ahead that :meth:`Env.idle` also waits for (a card edit is held back up to its interval)."""


@dataclass
class Env:
    ws: Workspace
    bot: Bot
    db: Path
    finished: Counter[str] = field(default_factory=Counter)
    """How many times the bot's listeners have finished with each event, by event id (a retry counts again)."""

    # --- looking -------------------------------------------------------------

    def cards(self) -> list[Message]:
        return [m for m in self.ws.state.history(OPS) if m.bot_id and not m.is_reply]

    async def start(self, task: str, user: str = "alice") -> Message:
        """``/tandem task`` as ``user``; the new run's card (the command is answered before its run starts)."""
        count = len(self.cards())
        await self.ws.slash_command(user, OPS, task)
        await self.wait(lambda: len(self.cards()) > count)
        return self.cards()[count]

    def thread(self, card: Message) -> list[Message]:
        return [m for m in self.ws.state.thread(OPS, card.ts) if m.ts != card.ts]

    def reviews(self, card: Message) -> list[Message]:
        """Messages in the run's thread that still carry buttons."""
        decisive = {"tandem.approve", "tandem.reject", "tandem.cancel", "tandem.request_changes"}
        return [m for m in self.thread(card) if m.bot_id and decisive & {b.get("action_id") for b in buttons_of(m)}]

    def open_review(self, card: Message) -> Message | None:
        reviews = self.reviews(card)
        return reviews[-1] if reviews else None

    async def wait(self, predicate: Any, within: float = 10.0) -> None:
        await self.ws.wait_until(lambda _state: bool(predicate()), within=within)

    async def next_review(self, card: Message, after: Message | None = None, within: float = 10.0) -> Message:
        def fresh() -> Message | None:
            review = self.open_review(card)
            if review is None or (after is not None and review.ts <= after.ts):
                return None
            return review

        await self.wait(fresh, within)
        review = fresh()
        assert review is not None
        return review

    async def idle(self) -> None:
        """Wait for the bot's background work, then for the messages it caused to be delivered."""
        await self.bot.deps.background.idle()
        await self.bot.deps.delivery.idle(horizon=CARD_SETTLE)

    async def handled(self, delivery: Delivery, times: int = 1) -> None:
        """Wait until the bot has finished with ``delivery``'s event ``times`` times (each retry once more),
        then for the work it started: the positive signal that an event was handled, whatever it did."""
        assert delivery.event_id is not None
        await self.wait(lambda: self.finished[delivery.event_id] >= times)
        await self.idle()

    # --- doing ---------------------------------------------------------------

    async def click(self, user: str, message: Message, action_id: str) -> Any:
        value = button_value(message, action_id)
        return await self.ws.click(user, OPS, message.ts, action_id, value)


async def asked_in_thread(env: Env, prompt: str) -> Any:
    """The handoff's question as it shows in its run's thread, once it is there."""

    def question() -> Any:
        for card in env.cards():
            for message in env.thread(card):
                if prompt in text_of(message) and "tandem.answer" in str(message.blocks):
                    return message
        return None

    await env.wait(question)
    return question()


def buttons_of(message: Message) -> list[dict[str, Any]]:
    found = []
    for block in message.blocks:
        if block.get("type") == "actions":
            found += [e for e in block.get("elements", []) if e.get("type") == "button"]
        accessory = block.get("accessory")
        if isinstance(accessory, dict) and accessory.get("type") == "button":
            found.append(accessory)
    return found


def button_value(message: Message, action_id: str) -> str:
    for button in buttons_of(message):
        if button.get("action_id") == action_id:
            return str(button.get("value", ""))
    raise AssertionError(
        f"no {action_id} button on {message.text!r}: {[b.get('action_id') for b in buttons_of(message)]}"
    )


def text_of(message: Message) -> str:
    """All the text a person reads in a message (mrkdwn of every block)."""
    parts = [message.text]

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("text"), str):
                parts.append(node["text"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(message.blocks)
    return "\n".join(parts)


def settings_for(ws: Workspace, db: Path, **extra: Any) -> SlackSettings:
    return SlackSettings(
        bot_token=ws.bot_token,
        signing_secret=ws.signing_secret,
        api_url=ws.api_url,
        db=str(db),
        card_update_interval=0.02,
        **extra,
    )


@asynccontextmanager
async def running(tmp_path: Path, **extra: Any) -> AsyncIterator[Env]:
    db = tmp_path / "tandem.db"
    async with run_workspace() as ws:
        async with serving(settings_for(ws, db, **extra), port=0) as bot:
            ws.events_url = f"{bot.url}/slack/events"
            env = Env(ws=ws, bot=bot, db=db)
            runner = bot.app.listener_runner
            runner.listener_completion_handler = Finished(runner.listener_completion_handler, env.finished)
            yield env
            await bot.deps.background.idle()
            if bot.deps.store.is_open:  # (a test may have closed it on purpose)
                await bot.deps.delivery.idle()


class Finished(AsyncListenerCompletionHandler):
    """Bolt's hook after each listener has run: counts the events finished, by event id."""

    def __init__(self, inner: AsyncListenerCompletionHandler, finished: Counter[str]) -> None:
        self.inner = inner
        self.finished = finished

    async def handle(self, request: AsyncBoltRequest, response: BoltResponse | None) -> None:
        await self.inner.handle(request=request, response=response)
        event_id = request.body.get("event_id")
        if isinstance(event_id, str):
            self.finished[event_id] += 1


THREE_ANCHORS = '\n[anchors]\nmerge_gate = false\nafter_risky_step = "any_follows"\n'
"""A policy part for tests of the gate and the outcome review: Tandem's first three anchors (every risky
step asks at its own gate, and its outcome stops the run before any further step)."""
THREE_ANCHORS_ENV = {
    "TANDEM_POLICY__ANCHORS__MERGE_GATE": "false",
    "TANDEM_POLICY__ANCHORS__AFTER_RISKY_STEP": "any_follows",
}
"""The same, for a bot process's environment."""


def policy_file(tmp_path: Path, text: str) -> str:
    """A policy file (TOML ``text``) for the bot's ``config`` setting."""
    path = tmp_path / "tandem.toml"
    path.write_text(text)
    return str(path)


async def gate_of(env: Env, task: str, user: str = "alice", approver: str | None = None) -> tuple[Message, Message]:
    """Start ``task`` as ``user`` and approve (as ``approver``, default ``user``) up to its first risky-step gate."""
    card = await env.start(task, user)
    review = await env.next_review(card)
    while "needs approval" not in text_of(review):
        await env.click(approver or user, review, ids.APPROVE)
        review = await env.next_review(card, after=review)
    return card, review


async def misread_reply(env: Env, user: str = "alice") -> tuple[Message, Message, Message]:
    """``user``'s run, and their reply read as a correction: the run's card, the "Read as" line (with its
    *Not what I meant*), and the review the reading led to."""
    await env.ws.slash_command(user, OPS, "restart payments and check errors after")
    await env.wait(env.cards)
    card = env.cards()[0]
    plan = await env.next_review(card)
    await env.ws.reply_in_thread(user, OPS, card.ts, "restart checkout instead of payments")
    await env.wait(lambda: any("Read as" in text_of(m) for m in env.thread(card)))
    read_as = next(m for m in env.thread(card) if "Read as" in text_of(m))
    return card, read_as, await env.next_review(card, after=plan)
