"""Drive the real bot's Feishu webhook over HTTP from the local Feishu fake, as people in Feishu would."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cli.serve import FeishuBot, feishu_connected, feishu_serving
from feishu.settings import FeishuSettings
from workspace.feishu_fake import (
    APP_ID,
    APP_SECRET,
    ENCRYPT_KEY,
    VERIFICATION_TOKEN,
    FeishuFake,
    Posted,
    button_values,
    card_text,
    run_feishu,
)

OPS = "oc_ops"
DECISIVE = {"approve", "cancel", "request_changes", "answer", "instruct"}


@dataclass
class FEnv:
    fake: FeishuFake
    bot: FeishuBot
    db: Path

    def cards(self) -> list[Posted]:
        return self.fake.roots(OPS)

    def reviews(self, root: Posted) -> list[Posted]:
        """Bot cards in the run's thread that still carry decision buttons."""
        return [
            m
            for m in self.fake.thread(root.message_id)
            if m.sender.startswith("ou_tandem") and DECISIVE & {str(v.get("action")) for v in button_values(m.card)}
        ]

    def bot_thread(self, root: Posted) -> list[Posted]:
        return [m for m in self.fake.thread(root.message_id) if m.sender.startswith("ou_tandem")]

    async def wait(self, predicate: Callable[[], Any], within: float = 10.0) -> None:
        deadline = time.monotonic() + within
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {within} s waiting for {getattr(predicate, '__name__', '')}")
            await asyncio.sleep(0.02)

    async def next_review(self, root: Posted, after: Posted | None = None, within: float = 10.0) -> Posted:
        def fresh() -> Posted | None:
            reviews = self.reviews(root)
            if not reviews or (after is not None and reviews[-1].message_id <= after.message_id):
                return None
            return reviews[-1]

        await self.wait(fresh, within)
        review = fresh()
        assert review is not None
        return review

    async def plan_of(self, task: str, person: str = "alice") -> tuple[Posted, Posted]:
        """``person`` asks the bot for ``task`` in the chat: the run's root card and its plan review."""
        count = len(self.cards())
        await self.fake.say(person, OPS, task)
        await self.wait(lambda: len(self.cards()) > count)
        root = self.cards()[count]
        return root, await self.next_review(root)

    async def idle(self) -> None:
        await self.bot.background.idle()
        await self.bot.deps.delivery.idle(horizon=1.0)

    async def exec_gate(self, task: str, user: str = "alice", approver: str | None = None) -> tuple[Posted, Posted]:
        """``user`` asks for ``task``; ``approver`` (default ``user``) approves up to its first exec gate:
        the run's root card and the gate."""
        await self.fake.say(user, OPS, task)
        await self.wait(self.cards)
        root = self.cards()[-1]
        review = await self.next_review(root)
        while "exec" not in text(review) or "Plan" in review.card["header"]["title"]["content"]:
            await self.fake.click(approver or user, review.message_id, "approve")
            review = await self.next_review(root, after=review)
        return root, review


def text(posted: Posted) -> str:
    return card_text(posted.card)


def settings_for(fake: FeishuFake, db: Path, **extra: Any) -> FeishuSettings:
    given: dict[str, Any] = {
        "app_id": APP_ID,
        "app_secret": APP_SECRET,
        "verification_token": VERIFICATION_TOKEN,
        "encrypt_key": ENCRYPT_KEY,
        "api_url": fake.api_url,
        "db": str(db),
        "card_update_interval": 0.02,
    }
    return FeishuSettings(**(given | extra))


@asynccontextmanager
async def running_feishu(tmp_path: Path, transport: str = "webhook", **extra: Any) -> AsyncIterator[FEnv]:
    """The bot and the fake; ``transport="ws"``: over the long connection (lark-oapi's client) instead."""
    db = tmp_path / "tandem.db"
    if transport == "ws":
        async with run_feishu(transport="ws") as fake:
            async with feishu_connected(settings_for(fake, db, **extra)) as bot:
                await fake.connected()
                yield FEnv(fake=fake, bot=bot, db=db)
                await bot.background.idle()
                await bot.deps.delivery.idle()
        return
    async with run_feishu() as fake:
        async with feishu_serving(settings_for(fake, db, **extra), port=0) as bot:
            fake.events_url = f"{bot.url}/feishu/events"
            yield FEnv(fake=fake, bot=bot, db=db)
            await bot.background.idle()
            await bot.deps.delivery.idle()
