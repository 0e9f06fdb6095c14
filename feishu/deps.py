"""What the Feishu handlers get: the core services, the API client, the channel and background work."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Sequence
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
NAMES_WITHIN = 0.5  # seconds a toast waits for names (a card callback is answered within 3 s)


@dataclass(frozen=True)
class Person:
    """What Tandem reads of a Feishu user: their departments and their name (None: not told)."""

    departments: tuple[str, ...]
    name: str | None


class Spawner(Protocol):
    """Background work the app owns: started after the answer, awaited on shutdown."""

    def spawn(self, coro: Coroutine[Any, Any, Any], *, name: str | None = None, service: bool = False) -> Any: ...

    async def idle(self) -> None:
        """Wait until no background work is left."""
        ...


class Directory:
    """A person's departments (``od-…``), which policy entries may name, and their name, cached for a few minutes."""

    def __init__(self, api: FeishuApi, clock: Callable[[], float] = time.monotonic) -> None:
        self.api = api
        self.clock = clock
        self._cache: dict[str, tuple[float, Person]] = {}

    async def person(self, open_id: str) -> Person | None:
        """What the contact API says of ``open_id`` (None: it did not answer; asked again next time)."""
        cached = self._cache.get(open_id)
        if cached is not None and cached[0] > self.clock():
            return cached[1]
        try:
            user = await self.api.user(open_id)
        except FeishuError as exc:
            log.warning("could not read the contact record of %s: %s", open_id[:40], exc)
            return None
        departments = tuple(str(d) for d in user.get("department_ids") or [] if isinstance(d, str))
        name = user.get("name")
        person = Person(departments, name.strip() if isinstance(name, str) and name.strip() else None)
        self._cache[open_id] = (self.clock() + GROUPS_TTL, person)
        return person

    async def groups_of(self, open_id: str) -> Sequence[str]:
        person = await self.person(open_id)
        return person.departments if person is not None else ()

    async def names(self, open_ids: Iterable[str], within: float = NAMES_WITHIN) -> dict[str, str]:
        """The names of those of ``open_ids`` the contact API tells within ``within`` seconds (the rest are left
        out: a toast must answer in time, and names it by id rather than not at all)."""
        wanted = sorted(set(open_ids))
        lookups = [asyncio.ensure_future(self.person(i)) for i in wanted]
        if not lookups:
            return {}
        await asyncio.wait(lookups, timeout=within)
        found = {}
        for open_id, lookup in zip(wanted, lookups, strict=True):
            if not lookup.done():
                lookup.cancel()
            elif not lookup.cancelled() and (person := lookup.result()) is not None and person.name:
                found[open_id] = person.name
        return found


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
    _tenant: asyncio.Future[str] | None = None
    _bot: list[str] = field(default_factory=list)

    @property
    def inbox(self) -> InboxStore:
        """The store requests are kept in before their answer."""
        return self.inbox_store if self.inbox_store is not None else self.store

    @cached_property
    def usecases(self) -> UseCases:
        """What people can do with runs; Feishu departments come from the directory. Built once."""
        return UseCases(self.runtime, self.store, self.directory.groups_of)

    async def tenant_key(self, within: float | None = None) -> str:
        """This app's tenant (learned once): requests from any other are refused.

        Requests arriving while Feishu is asked wait for the same call. One that stops waiting after ``within``
        seconds (:class:`TimeoutError`) leaves the call running for the next; a call that failed is made again.
        """
        lookup = self._tenant
        if lookup is None or (lookup.done() and (lookup.cancelled() or lookup.exception() is not None)):
            lookup = self._tenant = asyncio.ensure_future(self.api.tenant_key())
            lookup.add_done_callback(_seen)  # a failure nobody waits for any more is not "never retrieved"
        if lookup.done():  # learned: every later request
            return lookup.result()
        async with asyncio.timeout(within):
            return await asyncio.shield(lookup)

    async def bot_open_id(self) -> str:
        if not self._bot:
            self._bot.append(await self.api.bot_open_id())
        return self._bot[0]

    def spawn(self, work: Awaitable[object], name: str) -> None:
        async def run() -> None:
            await work

        self.background.spawn(run(), name=name)


def _seen(future: asyncio.Future[str]) -> None:
    if not future.cancelled():
        future.exception()
