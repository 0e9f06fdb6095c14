"""A call under the step timeout: stopped when it can be, honestly abandoned when it cannot."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any

import pytest

from agent.runtime.stopping import LateCalls, OutOfTime, within

GRACE = 0.05


async def outcome_of(work: Coroutine[Any, Any, Any], *, stoppable: bool = True) -> tuple[str, asyncio.Future[Any]]:
    call = asyncio.ensure_future(work)
    with pytest.raises(OutOfTime) as late:
        await within(call, timeout=0.05, stoppable=stoppable, grace=GRACE)
    return late.value.outcome, call


async def test_within_call_that_finishes_in_time_returns_its_result() -> None:
    async def quick() -> str:
        return "ok"

    assert await within(asyncio.ensure_future(quick()), timeout=5, stoppable=True) == "ok"


async def test_within_call_that_fails_in_time_raises_its_error() -> None:
    async def broken() -> str:
        raise RuntimeError("db unreachable")

    with pytest.raises(RuntimeError, match="db unreachable"):
        await within(asyncio.ensure_future(broken()), timeout=5, stoppable=True)


async def test_within_async_call_past_the_timeout_is_cancelled_and_its_finally_runs() -> None:
    cleaned = asyncio.Event()

    async def slow() -> str:
        try:
            await asyncio.Event().wait()
            return "never"
        finally:
            cleaned.set()

    outcome, call = await outcome_of(slow())
    assert outcome == "cancelled" and call.cancelled() and cleaned.is_set()


async def test_within_async_call_that_catches_the_first_cancel_is_stopped_by_the_second() -> None:
    caught, cleaned = asyncio.Event(), asyncio.Event()

    async def stubborn() -> str:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            caught.set()  # "one last thing" that never ends...
            await asyncio.Event().wait()
        finally:
            cleaned.set()
        return "never"

    outcome, _ = await outcome_of(stubborn())
    assert outcome == "cancelled" and caught.is_set() and cleaned.is_set()


async def test_within_async_call_that_returns_after_being_cancelled_still_timed_out() -> None:
    async def swallows() -> str:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            return "a result nobody may use"
        return "never"

    outcome, call = await outcome_of(swallows())
    assert outcome == "cancelled" and call.done()


async def test_within_async_call_that_ignores_every_cancel_is_abandoned_and_still_running() -> None:
    release = asyncio.Event()
    ignored: list[int] = []

    async def deaf() -> str:
        while not release.is_set():
            try:
                await release.wait()
            except asyncio.CancelledError:
                ignored.append(1)
        return "late"

    outcome, call = await outcome_of(deaf())
    assert outcome == "abandoned" and not call.done() and len(ignored) == 2
    release.set()
    assert await call == "late"


async def test_within_sync_call_is_abandoned_at_once_and_keeps_running() -> None:
    started, release = threading.Event(), threading.Event()

    def blocking() -> str:
        started.set()
        release.wait(30)
        return "late"

    outcome, call = await outcome_of(asyncio.to_thread(blocking), stoppable=False)
    assert outcome == "abandoned" and started.is_set() and not call.done()
    release.set()
    assert await call == "late"


async def test_within_cancelled_waiter_cancels_the_call_too() -> None:
    cleaned = asyncio.Event()

    async def slow() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            cleaned.set()

    call = asyncio.ensure_future(slow())
    waiter = asyncio.ensure_future(within(call, timeout=60, stoppable=True))
    await asyncio.sleep(0)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    await asyncio.wait({call}, timeout=5)
    assert call.cancelled() and cleaned.is_set()


async def test_late_calls_keep_a_call_until_it_ends() -> None:
    release = asyncio.Event()
    late = LateCalls(lambda: 1000.0)
    call = asyncio.ensure_future(release.wait())
    late.keep(("r1", 2, "look"), call)
    assert late.since(("r1", 2, "look")) == 1000.0
    assert late.since(("r1", 2, "ship")) is None and late.since(("r2", 2, "look")) is None
    release.set()
    await call
    assert late.since(("r1", 2, "look")) is None and late.calls() == []
