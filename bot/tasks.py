"""Background work the app owns: started after ack, awaited on shutdown."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

from agent import inbox

log = logging.getLogger("tandem.bot")


class Background:
    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._services: set[asyncio.Task[Any]] = set()

    def spawn(
        self, coro: Coroutine[Any, Any, Any], *, name: str | None = None, service: bool = False
    ) -> asyncio.Task[Any]:
        """Run ``coro`` in the background. A ``service`` runs for the app's lifetime
        (e.g. the scheduler): ``idle`` does not wait for it, ``drain`` stops it. Work started for a
        request kept in the inbox is part of it: the row is done once this ends (:mod:`agent.inbox`)."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        (self._services if service else self._tasks).add(task)
        task.add_done_callback(self._done)
        receipt = inbox.current()
        if receipt is not None and not service:
            receipt.hold()
            task.add_done_callback(receipt.task_done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        self._services.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background task %s failed", task.get_name(), exc_info=task.exception())

    async def drain(self, grace: float = 30.0) -> None:
        """Wait for running work (e.g. a tool mid-step) before the process exits."""
        for service in list(self._services):
            service.cancel()
        await asyncio.gather(*self._services, return_exceptions=True)
        while self._tasks:
            done, pending = await asyncio.wait(set(self._tasks), timeout=grace)
            if pending and not done:
                for task in pending:
                    task.cancel()
                await asyncio.gather(*pending, return_exceptions=True)
                return

    async def idle(self) -> None:
        """Wait until no background work is left (tests use this)."""
        while self._tasks:
            await asyncio.gather(*set(self._tasks), return_exceptions=True)
