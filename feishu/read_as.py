""" "Read as" cards in a run's thread: how a reply was read, with *Not what I meant* while it can still apply.

*Not what I meant* applies to whatever the run waits for now, so only the newest "Read as" of a run
keeps its form: a later one, or the end of the run, closes it (the card says why, with no form).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from agent.correction_messages import NOTHING_RAN_YET
from agent.models import outbox as out
from agent.ports import Store
from feishu.api import FeishuApi
from feishu.cards import read_as_card
from feishu.elements import Card, decided, is_live
from feishu.origin import FeishuChat
from feishu.wording import Lang, say


def read_as_key(run_id: str) -> str:
    """Where a run's newest "Read as" card is kept."""
    return f"feishu:read_as:{run_id}"


async def post_read_as(
    api: FeishuApi,
    store: Store,
    reply: Callable[[Card], Awaitable[str]],
    run_id: str,
    where: FeishuChat,
    message: out.ReadAs,
    lang: Lang,
) -> None:
    """Post how a reply was read; the run's earlier "Read as" card loses its form."""
    record = await store.get_review(message.review_id)
    before_it_runs = record is not None and record.anchor in NOTHING_RAN_YET
    card = read_as_card(message.reading, message.review_id, run_id, lang, before_it_runs=before_it_runs)
    await close_read_as(api, store, run_id, say("read_as_later", lang))
    posted_at = await reply(card)
    await store.save_message(read_as_key(run_id), run_id, where.chat_id, posted_at, [card])


async def close_read_as(api: FeishuApi, store: Store, run_id: str, why: str) -> None:
    """The run's newest "Read as" card without its form, saying ``why`` (nothing if it has none)."""
    posted = await store.message(read_as_key(run_id))
    if posted is None or not posted.blocks or not is_live(posted.blocks[0]):
        return
    card = decided(posted.blocks[0], why)
    await api.patch_card(posted.ts, card)
    await store.save_message(read_as_key(run_id), run_id, posted.channel, posted.ts, [card])
