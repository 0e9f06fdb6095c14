"""Full garbage collections when no request waits, instead of whenever allocations add up.

Python runs a full (oldest-generation) collection after enough younger ones, wherever the process is. In a
served bot that is often in the middle of a burst of clicks: one pass over a large heap held every thread
for 20-170 ms in ``bench.ack``, and each ack that arrived meanwhile waited (the p99 of such a round was
twice that of a round without one). :func:`collecting` turns the automatic full collections off and makes
one itself every ``interval`` seconds, once requests are calm (:meth:`Acks.calm`; after its patience at
the latest). Young collections (a few milliseconds) still run as allocations need them, so cyclic garbage
is still freed young; what survives into the oldest generation waits at most ``interval`` seconds.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time

from agent.runtime.home import Acks

log = logging.getLogger("tandem.runtime")

INTERVAL = 10.0
"""Seconds between full collections."""
NEVER = 1 << 30
"""An oldest-generation threshold no process reaches: Python itself never starts a full collection."""


_running: list[tuple[int, int, int]] = []
"""Python's own thresholds, saved by the first collector running in this process (the last one puts them back)."""


async def collecting(acks: Acks, interval: float = INTERVAL) -> None:
    """A service: full collections every ``interval`` seconds at a calm moment, until cancelled. While any
    collector runs, Python starts none itself; once the last one is cancelled, its thresholds are back."""
    if not _running:
        young, middle, old = gc.get_threshold()
        gc.set_threshold(young, middle, NEVER)
        _running.append((young, middle, old))
    else:
        _running.append(_running[0])
    try:
        while True:
            await asyncio.sleep(interval)
            await acks.calm()
            began = time.perf_counter()
            found = gc.collect()
            took = (time.perf_counter() - began) * 1e3
            log.debug("full garbage collection: %d objects freed in %.1f ms", found, took)
    finally:
        own = _running.pop()
        if not _running:
            gc.set_threshold(*own)
