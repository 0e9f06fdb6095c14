"""A version number that goes up on every change to the workspace, and a way to wait for the next one.

The Web API bumps it on every call the bot makes; person actions bump it when
they post, and the browser UI bumps it after it applies the bot's answer. The
UI's event stream and the tests' ``wait_until`` both sleep on it.
"""

from __future__ import annotations

import asyncio


class ChangeFeed:
    def __init__(self) -> None:
        self.version = 0
        self._waiters: list[asyncio.Event] = []

    def bump(self) -> None:
        self.version += 1
        for waiter in self._waiters:
            waiter.set()
        self._waiters.clear()

    async def wait_past(self, version: int) -> int:
        """Return the current version once it is past ``version`` (at once if it already is)."""
        while self.version <= version:
            waiter = asyncio.Event()
            self._waiters.append(waiter)
            await waiter.wait()
        return self.version
