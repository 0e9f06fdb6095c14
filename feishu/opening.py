"""A run's card, posted from the outbox as the run's first message (its thread's root), and the requester
told privately when it could never be posted."""

from __future__ import annotations

from agent.models import NotStarted, RunState
from agent.ports import Store
from feishu import messages
from feishu.api import FeishuApi, FeishuError
from feishu.cards import line_card
from feishu.elements import Card
from feishu.origin import FeishuChat
from feishu.wording import clip, escape, lang_of


async def post_card(api: FeishuApi, store: Store, chat_id: str, card: Card, uuid: str, run_id: str) -> None:
    """Post the card in the chat (once: Feishu keeps one message per ``uuid``); the run's thread is the card's
    from now on."""
    root = await api.send_card(chat_id, card, uuid=uuid)
    await store.card_posted(run_id, FeishuChat(chat_id=chat_id, root_id=root).thread or "")


async def tell_not_started(api: FeishuApi, state: RunState, chat_id: str, message: NotStarted) -> None:
    """Tell the requester, privately in the chat, that the run's card could not be posted (and that the run
    did not start, when it was stopped for it); in a direct message when the chat refuses even that."""
    error = escape(clip(message.error or "unknown error", 200))
    if message.stopped:
        text = messages.NOT_STARTED.format(error=error, run=state.id, task=escape(clip(state.task, 300)))
    else:
        text = messages.CARD_NOT_POSTED.format(error=error, run=state.id, status=state.status)
    card = line_card(text, lang_of(state.task))
    try:
        await api.ephemeral(chat_id, state.requester, card)
    except FeishuError as exc:
        if not exc.permanent:
            raise  # Feishu is not answering: the outbox tries again
        await api.send_to_user(state.requester, card)  # e.g. the bot is no longer in the chat
