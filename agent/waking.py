"""Waiting for a run to change without polling it hard: a :class:`Wakes` is a runtime observer that wakes whoever
watches a run as soon as a transition of it is committed in this process (whatever loop or thread the runtime
works on). A change made by another process is not seen here: a watcher still reads the run now and then."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager

from agent.ports import Change

Watcher = tuple[asyncio.AbstractEventLoop, asyncio.Event]


class Wakes:
    """Run id -> who watches it. Only the watchers' loop changes the map (each entry is replaced whole), so the
    runtime's loop may read it from another thread."""

    def __init__(self) -> None:
        self._watching: dict[str, tuple[Watcher, ...]] = {}

    async def on_change(self, change: Change) -> None:
        for loop, changed in self._watching.get(change.state.id, ()):
            if _running() is loop:
                changed.set()
            elif not loop.is_closed():
                loop.call_soon_threadsafe(changed.set)

    @contextmanager
    def watching(self, run_id: str) -> Iterator[asyncio.Event]:
        """An event set whenever ``run_id`` changes in this process, while the block runs (clear it, then read)."""
        watcher = (asyncio.get_running_loop(), asyncio.Event())
        self._watching[run_id] = (*self._watching.get(run_id, ()), watcher)
        try:
            yield watcher[1]
        finally:
            left = tuple(w for w in self._watching.get(run_id, ()) if w is not watcher)
            if left:
                self._watching[run_id] = left
            else:
                self._watching.pop(run_id, None)


def _running() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
