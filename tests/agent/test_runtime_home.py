"""The runtime's own loop: work hops there from any loop, and comes back with its result."""

from __future__ import annotations

import asyncio
import sys
import threading

import pytest

from agent.runtime.home import RuntimeLoop, at_home, forwarded


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
