"""What the Feishu handlers get: the core services, the API client, the channel and background work."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

from agent.delivery import DeliveryWorker
from agent.ports import InboxStore, Store
from agent.runtime import Runtime
from agent.usecases import UseCases
from feishu.api import FeishuApi, FeishuError
from feishu.channel import FeishuChannel
from feishu.settings import FeishuSettings

log = logging.getLogger("tandem.feishu")

GROUPS_TTL = 300.0


class Spawner(Protocol):
    """Background work the app owns: started after the answer, awaited on shutdown."""

    def spawn(self, coro: Coroutine[Any, Any, Any], *, name: str | None = None, service: bool = False) -> Any: ...

    async def idle(self) -> None:
        """Wait until no background work is left."""
        ...


class Directory:
    """A person's departments (``od_…``), which policy entries may name, cached for a few minutes."""

    def __init__(self, api: FeishuApi, clock: Callable[[], float] = time.monotonic) -> None:
        self.api = api
        self.clock = clock
        self._cache: dict[str, tuple[float, tuple[str, ...]]] = {}

    async def groups_of(self, open_id: str) -> Sequence[str]:
        cached = self._cache.get(open_id)
        if cached is not None and cached[0] > self.clock():
            return cached[1]
        try:
            user = await self.api.user(open_id)
        except FeishuError as exc:
            log.warning("could not read the departments of %s: %s", open_id[:40], exc)
            return ()
        departments = tuple(str(d) for d in user.get("department_ids") or [] if isinstance(d, str))
        self._cache[open_id] = (self.clock() + GROUPS_TTL, departments)
        return departments


@dataclass
class FeishuDeps:
    settings: FeishuSettings
    runtime: Runtime
    store: Store
    api: FeishuApi
    channel: FeishuChannel
    delivery: DeliveryWorker
    background: Spawner
    directory: Directory
    clock: Callable[[], float] = time.time
    inbox_store: InboxStore | None = None
    """Where requests are kept before their answer, reached on the loop that answers (None: ``store``)."""
    _tenant: list[str] = field(default_factory=list)
    _bot: list[str] = field(default_factory=list)

    @property
    def inbox(self) -> InboxStore:
        """The store requests are kept in before their answer."""
        return self.inbox_store if self.inbox_store is not None else self.store

    @cached_property
    def usecases(self) -> UseCases:
        """What people can do with runs; Feishu departments come from the directory. Built once."""
        return UseCases(self.runtime, self.store, self.directory.groups_of)

    async def tenant_key(self) -> str:
        """This app's tenant (asked once): requests from any other are refused."""
        if not self._tenant:
            self._tenant.append(await self.api.tenant_key())
        return self._tenant[0]

    async def bot_open_id(self) -> str:
        if not self._bot:
            self._bot.append(await self.api.bot_open_id())
        return self._bot[0]

    def spawn(self, work: Awaitable[object], name: str) -> None:
        async def run() -> None:
            await work

        self.background.spawn(run(), name=name)
