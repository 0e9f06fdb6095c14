"""Live updates: every persisted transition (a decision anywhere, a new review) tells the open inbox pages.

The runtime tells its observers on its own loop; :class:`Live` hands the news to the loop the web server runs on,
where each open page's event stream waits for it. A change from another process (a replica) reaches the pages
at the next :data:`REFRESH`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

from agent.ports import Change

REFRESH = 15.0
"""Seconds after which an open page looks again even if this process saw no change."""


class Live:
    """An :class:`~agent.ports.Observer` of the runtime, and the news each open page waits for."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None  # the web server's, set when it starts
        self._news = asyncio.Event()
        self._latest = ""  # the run whose change was told last
        self.closed = False

    def serving(self) -> None:
        """Called on the web server's loop as it starts."""
        self.loop = asyncio.get_running_loop()
        self._news = asyncio.Event()
        self.closed = False

    def close(self) -> None:
        """The server stops: every stream ends."""
        self.closed = True
        self._news.set()

    async def closing(self, _app: object) -> None:
        """:meth:`close`, as a server's shutdown hook."""
        self.close()

    async def on_change(self, change: Change) -> None:
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        run_id = change.state.id
        try:
            if asyncio.get_running_loop() is loop:
                self._tell(run_id)
            else:
                loop.call_soon_threadsafe(self._tell, run_id)
        except RuntimeError:  # the server's loop closed meanwhile: nobody is listening
            return

    def _tell(self, run_id: str) -> None:
        self._latest = run_id
        news, self._news = self._news, asyncio.Event()
        news.set()

    async def stream(self, refresh: float = REFRESH) -> AsyncIterator[dict[str, str]]:
        """Server-sent events for one page: ``changed`` with the runs that changed, as they do."""
        yield {"event": "ready", "data": "{}"}
        while not self.closed:
            news = self._news
            try:
                await asyncio.wait_for(news.wait(), timeout=refresh)
            except TimeoutError:
                yield {"event": "changed", "data": json.dumps({"runs": []})}
                continue
            if self.closed:
                return
            yield {"event": "changed", "data": json.dumps({"runs": [self._latest]})}
