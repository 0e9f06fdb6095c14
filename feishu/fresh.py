"""A review posted again on a fresh card before its card goes stale (a card JSON 2.0 message can be clicked
and updated for 14 days): the new card takes the old one's place, and the old one says where it went."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from agent.models import Form
from agent.ports import Store
from agent.review_view import ReviewView
from feishu.api import FeishuApi
from feishu.cards import review_card
from feishu.elements import Card, decided
from feishu.shorter import short_card
from feishu.wording import Lang, say


def stamp(at: float) -> str:
    """``2026-12-17 14:02 UTC``."""
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(at))


async def repost(
    api: FeishuApi,
    store: Store,
    reply: Callable[[Card], Awaitable[str]],
    view: ReviewView,
    key: str,
    chat_id: str,
    form: Form,
    at: float,
    lang: Lang,
) -> None:
    """Post ``view`` on a new card kept under ``key``; the card it replaces loses its controls and says that
    the review goes on in a fresh card of this thread, posted at ``at``."""
    if form == "text":
        return  # a review Feishu takes only as text has no card to go stale
    card = review_card(view) if form == "full" else short_card(view)
    old = await store.message(key)
    posted_at = await reply(card)
    await store.save_message(key, view.run_id, chat_id, posted_at, [card])
    if old is not None and old.blocks and old.ts != posted_at:
        await api.patch_card(old.ts, decided(old.blocks[0], say("moved", lang, at=stamp(at))))
