"""The runtime's own loop: work hops there from any loop, and comes back with its result."""

from __future__ import annotations

import asyncio
import sys
import threading
import time

import pytest

from agent.runtime.home import Acks, AllCalm, RuntimeLoop, at_home, forwarded
from tests.agent.waiting import eventually


class Counter:
    def __init__(self) -> None:
        self.home: RuntimeLoop | None = None
        self.threads: list[str] = []

    @at_home
    async def bump(self, by: int) -> int:
        self.threads.append(threading.current_thread().name)
        return by + 1

    async def where(self) -> str:
        return threading.current_thread().name

    def plain(self) -> str:
        return "plain"


async def test_at_home_method_called_from_another_loop_runs_on_the_home_thread() -> None:
    counter = Counter()
    assert await counter.bump(1) == 2  # no home: on the caller's loop
    async with RuntimeLoop.running("home-test") as home:
        counter.home = home
        assert await counter.bump(2) == 3
    assert counter.threads == [threading.current_thread().name, "home-test"]


async def test_forwarded_object_runs_coroutine_methods_at_home_and_passes_the_rest() -> None:
    async with RuntimeLoop.running("home-test") as home:
        seen = forwarded(home, Counter())
        assert await seen.where() == "home-test"
        assert seen.plain() == "plain"


async def test_call_cancelled_by_its_caller_cancels_the_work_at_home() -> None:
    started, stopped = threading.Event(), threading.Event()

    async def forever() -> None:
        started.set()
        try:
            await asyncio.sleep(3600)
        finally:
            stopped.set()

    async with RuntimeLoop.running("home-test") as home:
        task = asyncio.ensure_future(home.call(forever()))
        assert await asyncio.to_thread(started.wait, 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert await asyncio.to_thread(stopped.wait, 10)


async def test_running_sets_the_switch_interval_and_restores_it() -> None:
    before = sys.getswitchinterval()
    async with RuntimeLoop.running("home-test", switch_interval=0.001):
        assert sys.getswitchinterval() == pytest.approx(0.001)
    assert sys.getswitchinterval() == pytest.approx(before)


async def test_all_calm_waits_for_every_door_it_yields_to() -> None:
    slack, api = Acks(patience=60), Acks(patience=60)
    api.opened()
    waiting = asyncio.create_task(AllCalm((slack, api)).calm())
    await eventually(lambda: api.waited == 1, "the work waiting for the API's request")
    assert slack.waited == 0 and not waiting.done()
    api.closed()
    await asyncio.wait_for(waiting, 5)


async def test_calm_returns_at_once_when_no_request_is_open() -> None:
    acks = Acks(patience=60)
    await acks.calm()
    assert acks.waited == 0


async def test_calm_waits_for_the_last_open_request_to_close() -> None:
    acks = Acks(patience=60)
    acks.opened()
    acks.opened()
    waiting = asyncio.create_task(acks.calm())
    await eventually(lambda: acks.waited == 1, "the work listed as waiting")
    acks.closed()
    later = asyncio.create_task(acks.calm())
    await eventually(lambda: acks.waited == 2, "the later one waiting too (the loop went past the first close)")
    assert not waiting.done(), "one request is still open"
    acks.closed()
    await asyncio.wait_for(later, 5)
    await asyncio.wait_for(waiting, 5)


async def test_calm_waits_out_a_burst_whose_requests_follow_each_other_closely() -> None:
    acks = Acks(patience=60, quiet=0.5)
    acks.opened()
    waiting = asyncio.create_task(acks.calm())
    await eventually(lambda: acks.waited == 1, "the work listed as waiting")
    for _ in range(5):  # a client's next request comes 20 ms after its last ack, with none open between
        acks.closed()
        await asyncio.sleep(0.02)
        acks.opened()
    acks.closed()
    last_closed = time.monotonic()
    await asyncio.wait_for(waiting, 5)
    assert time.monotonic() - last_closed >= 0.5, "the work went ahead between two requests of the burst"


async def test_calm_after_a_request_that_just_closed_waits_for_the_quiet() -> None:
    acks = Acks(patience=60, quiet=0.2)
    acks.opened()
    acks.closed()
    closed_at = time.monotonic()
    await asyncio.wait_for(acks.calm(), 5)
    assert acks.waited == 1
    assert time.monotonic() - closed_at >= 0.19


async def test_calm_on_another_loop_is_woken_when_the_server_loop_closes_the_last_request() -> None:
    acks = Acks(patience=60)
    acks.opened()
    async with RuntimeLoop.running("acks-test") as home:
        future = home.submit(acks.calm())
        await eventually(lambda: acks.waited == 1, "the work on the other loop listed as waiting")
        assert not future.done()
        acks.closed()
        await asyncio.wait_for(asyncio.wrap_future(future), 5)


async def test_calm_goes_ahead_after_its_patience_when_requests_never_stop() -> None:
    acks = Acks(patience=0.05)
    acks.opened()
    await asyncio.wait_for(acks.calm(), 5)  # never closed: patience ends the wait
    assert acks.waited == 1 and acks.open == 1
