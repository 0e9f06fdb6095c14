"""What every Slack surface module gets from :func:`bot.handlers.register`."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import cached_property

from agent.config import PolicyConfig
from agent.delivery import DeliveryWorker
from agent.ports import InboxStore, Store
from agent.runtime import Runtime
from agent.runtime.home import Acks
from agent.usecases import UseCases
from bot.channel import SlackChannel
from bot.directory import Directory
from bot.tasks import Background


@dataclass
class Deps:
    runtime: Runtime
    store: Store
    channel: SlackChannel
    directory: Directory
    delivery: DeliveryWorker
    background: Background = field(default_factory=Background)
    links: dict[str, str] = field(default_factory=dict)
    """Permalinks of run threads (they never change), by run id."""
    clock: Callable[[], float] = time.time
    acks: Acks = field(default_factory=Acks)
    """The requests the HTTP server is answering now; background work yields to them."""
    api_acks: Acks = field(default_factory=Acks)
    """Requests to ``/api/v1`` that answer at once (a create, a cancel, a read that does not wait): the
    outbox's sends yield to them too. The runtime's own work does not: a create's run is part of its answer."""
    inbox_store: InboxStore | None = None
    """Where requests are kept before their ack, reached on the loop that acks (None: ``store``). A
    served bot opens a connection of its own here, so a runtime loop busy with a tool never holds up an ack."""

    @property
    def inbox(self) -> InboxStore:
        """The store requests are kept in before their ack."""
        return self.inbox_store if self.inbox_store is not None else self.store

    @property
    def config(self) -> PolicyConfig:
        return self.runtime.config

    @cached_property
    def usecases(self) -> UseCases:
        """What people can do with runs; Slack's group membership comes from the directory. Built once."""
        return UseCases(self.runtime, self.store, self.directory.groups_of)

    def spawn(self, work: Awaitable[object], name: str) -> None:
        """Run slow work (database, model, tools) in the app's background, after the ack."""

        async def run() -> None:
            await self.acks.calm()
            await work

        self.background.spawn(run(), name=name)
