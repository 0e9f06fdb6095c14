"""Full garbage collections at calm moments: Python starts none while a collector runs, the collector does."""

from __future__ import annotations

import asyncio
import gc
import weakref

from agent.runtime.collector import NEVER, collecting
from agent.runtime.home import Acks
from tests.agent.waiting import eventually


class Cycle:
    def __init__(self) -> None:
        self.me = self


async def test_collecting_frees_old_cyclic_garbage_at_a_calm_moment_and_puts_the_thresholds_back() -> None:
    before = gc.get_threshold()
    acks = Acks(patience=60, quiet=0.01)
    service = asyncio.create_task(collecting(acks, interval=0.05))
    try:
        await eventually(lambda: gc.get_threshold()[2] == NEVER, "Python's own full collections turned off")
        acks.opened()  # a request is being answered: the collection waits for it
        holder = [Cycle()]
        gc.collect(1)  # it survives into the oldest generation, which only a full collection looks at
        old = weakref.ref(holder[0])
        holder.clear()
        await eventually(lambda: acks.waited >= 1, "the collector waiting for the request")
        assert old() is not None
        acks.closed()
        await eventually(lambda: old() is None, "a full collection freeing the cycle once no request is open")
    finally:
        service.cancel()
        await asyncio.gather(service, return_exceptions=True)
    assert gc.get_threshold() == before


async def test_two_collectors_put_the_thresholds_back_once_the_last_one_stops() -> None:
    before = gc.get_threshold()
    acks = Acks()
    first = asyncio.create_task(collecting(acks, interval=60))
    second = asyncio.create_task(collecting(acks, interval=60))
    await eventually(lambda: gc.get_threshold()[2] == NEVER, "full collections turned off")
    first.cancel()
    await asyncio.gather(first, return_exceptions=True)
    assert gc.get_threshold()[2] == NEVER, "the second collector still runs"
    second.cancel()
    await asyncio.gather(second, return_exceptions=True)
    assert gc.get_threshold() == before
