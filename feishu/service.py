"""Feishu beside whatever else the server runs: its client, channel and delivery worker on the shared runtime."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

import aiohttp

from agent.delivery import DeliveryWorker
from agent.ports import InboxStore, Store
from agent.runtime import Runtime
from feishu.api import FeishuApi
from feishu.channel import CHANNEL, FeishuChannel
from feishu.deps import Directory, FeishuDeps, Spawner
from feishu.settings import FeishuSettings

log = logging.getLogger("tandem.feishu")


@asynccontextmanager
async def feishu_services(
    settings: FeishuSettings,
    runtime: Runtime,
    store: Store,
    background: Spawner,
    *,
    webhook: bool = True,
    inbox_store: InboxStore | None = None,
) -> AsyncIterator[FeishuDeps]:
    """The Feishu channel on ``runtime``: its outbox worker runs in ``background`` until the block ends
    (``webhook=False``: for the long connection, which needs only the app id and secret)."""
    settings.require(webhook=webhook)
    async with aiohttp.ClientSession() as session:
        api = FeishuApi(session, settings.api_url, settings.app_id or "", settings.secret("app_secret"))
        config = runtime.config
        channel = FeishuChannel(api, store, config=config, card_interval=settings.card_update_interval)
        delivery = DeliveryWorker(store, CHANNEL, channel, poll=settings.delivery_poll, lease=settings.delivery_lease)
        channel.worker = delivery
        runtime.observers.append(channel)
        deps = FeishuDeps(
            settings=settings,
            runtime=runtime,
            store=store,
            api=api,
            channel=channel,
            delivery=delivery,
            background=background,
            directory=Directory(api),
            inbox_store=inbox_store,
        )
        worker = background.spawn(delivery.run(), name="feishu:delivery", service=True)
        try:
            yield deps
        finally:
            with suppress(TimeoutError):  # clicks still applying write their messages before the worker stops
                async with asyncio.timeout(30.0):
                    await background.idle()
            if isinstance(worker, asyncio.Task):
                worker.cancel()
                with suppress(asyncio.CancelledError):
                    await worker
            if store.is_open:
                with suppress(TimeoutError):  # what is left stays in the outbox for the next start
                    async with asyncio.timeout(5.0):
                        await delivery.idle()
            runtime.observers.remove(channel)
