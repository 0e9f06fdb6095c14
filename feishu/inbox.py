"""Feishu requests through the inbox (:mod:`agent.inbox`): kept before they are answered, replayed after a crash.

A card callback and a message event are kept by their ``event_id`` (Feishu re-pushes an event
until it is answered, with the same id): a second delivery is answered and changes nothing.
Both connection modes (webhook, long connection) pass here, in :func:`feishu.dispatch.answer`;
:func:`feishu.dispatch.replayer` replays.
"""

from __future__ import annotations

from agent import inbox
from agent.inbox import Receipt
from agent.models.inbox import Inbound
from feishu.deps import FeishuDeps
from feishu.payloads import CardCallback, MessageEvent

SOURCE = "feishu"


async def keep(deps: FeishuDeps, model: MessageEvent | CardCallback) -> Receipt | None:
    """The receipt of the kept request, or None when it was received before (a duplicate)."""
    item = Inbound(
        key=f"feishu:event:{model.header.event_id}",
        source=SOURCE,
        body=model.model_dump_json(),
        received_at=deps.clock(),
    )
    kept = await inbox.keep(deps.inbox, item, deps.clock, deps.background, deps.settings.inbox_lease)
    return kept if isinstance(kept, Receipt) else None
