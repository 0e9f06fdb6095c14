"""Feishu requests through the inbox (:mod:`agent.inbox`): kept before they are answered, replayed after a crash.

A card callback and a message event are kept by their ``event_id`` (Feishu re-pushes an event
until it is answered, with the same id): a second delivery is answered and changes nothing.
Both connection modes (webhook, long connection) pass here, in :func:`feishu.dispatch.answer`.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from agent.inbox import Receipt, Replay, watching
from agent.models.inbox import Inbound
from feishu.deps import FeishuDeps
from feishu.payloads import CardCallback, MessageEvent, inbound

log = logging.getLogger("tandem.feishu")

SOURCE = "feishu"


async def keep(deps: FeishuDeps, model: MessageEvent | CardCallback) -> Receipt | None:
    """The receipt of the kept request, or None when it was received before (a duplicate)."""
    key = f"feishu:event:{model.header.event_id}"
    now = deps.clock()
    body = model.model_dump_json()
    item = Inbound(key=key, source=SOURCE, body=body, received_at=now)
    if not await deps.store.receive_inbound(item, now + deps.settings.inbox_lease):
        log.info("ignored a repeated event %s", model.header.event_id[:60])
        return None
    receipt = Receipt(deps.store, key, deps.clock, deps.settings.inbox_lease)

    def spawn(work: Any) -> None:
        deps.background.spawn(work, name="inbox:watch")

    watching(receipt, spawn)
    return receipt


def replayer(deps: FeishuDeps) -> Replay:
    """Answer a kept request again (the answer goes nowhere: the outbox shows what it changed)."""
    from feishu.dispatch import handle

    async def replay(item: Inbound) -> None:
        model = inbound(json.loads(item.body))
        if isinstance(model, MessageEvent | CardCallback):
            await handle(deps, model)

    return replay
