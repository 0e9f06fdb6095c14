"""Step timeouts on the real runtime (SQLite file, scripted model): what stops, what runs on, what is said."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from agent.brain import LLMBrain
from agent.models import Correct, Policy, RunState
from agent.runtime import Runtime
from agent.tools import Risk, ToolRegistry, load_tools, tool
from cli.render import review_text
from storage.facade import AsyncStore
from tests.fakes import ScriptedModel

STILL_RUNNING = "still running in the background and may yet take effect"
STOPPED = "Tandem stopped it; it is not running any more."


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[AsyncStore]:
    async with AsyncStore(tmp_path / "timeouts.db") as s:
        yield s


def plan_json(tool_name: str, **params: Any) -> str:
    return json.dumps({"steps": [{"tool": tool_name, "params": params, "reason": "look at it"}]})


def runtime(store: AsyncStore, tools: ToolRegistry, model: ScriptedModel, timeout: float) -> Runtime:
    policy = Policy(step_timeout=timeout, anchors=frozenset({"before_result"}))
    rt = Runtime(store, LLMBrain(model), tools, policy=policy)
    rt.worker.cancel_grace = 0.05
    return rt


def registry(*fns: Callable[..., Any]) -> ToolRegistry:
    tools = ToolRegistry()
    for fn in fns:
        tools.add_function(fn)
    return tools


class Held:
    """A sync tool held on a threading.Event until the test lets it go."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.returned = threading.Event()
        self.calls = 0
        self.effects: list[str] = []

        @tool(risk=Risk.READ)
        def drain_queue(queue: str) -> str:
            """Drain a queue (slowly)."""
            self.calls += 1
            self.started.set()
            self.release.wait(30)
            self.effects.append(queue)
            self.returned.set()
            return f"{queue} drained"

        self.tools = registry(drain_queue)


def failed_step_review(state: RunState) -> str:
    assert state.pending is not None and state.pending.anchor == "step_failed"
    return review_text(state, state.pending)


async def test_sync_tool_past_the_timeout_is_abandoned_and_its_late_result_changes_nothing(store: AsyncStore) -> None:
    held = Held()
    rt = runtime(store, held.tools, ScriptedModel(plan_json("drain_queue", queue="jobs")), timeout=0.1)
    try:
        state = await rt.start("drain jobs", "U1")
        step = state.plan[0]
        assert held.started.is_set() and not held.returned.is_set()
        assert (step.status, step.error, step.timed_out) == ("failed", "Timed out after 0.1 s.", "abandoned")
        text = failed_step_review(state)
        assert "Timed out after 0.1 s." in text and STILL_RUNNING in text and "check before retrying" in text
        before = await store.load(state.id)
        events = await store.events(state.id)
        late = rt.worker.late.calls()
        assert len(late) == 1 and not late[0].done()
    finally:
        held.release.set()
    assert await asyncio.to_thread(held.returned.wait, 30)
    await asyncio.wait(late, timeout=30)
    assert rt.worker.late.calls() == [] and held.effects == ["jobs"]  # it did take effect, late
    assert await store.load(state.id) == before  # ...but its result never reached the run
    assert await store.events(state.id) == events


async def test_retry_while_the_abandoned_call_runs_does_not_start_a_second_copy(store: AsyncStore) -> None:
    held = Held()
    model = ScriptedModel(
        plan_json("drain_queue", queue="jobs"), '{"params": {}}', '{"params": {}}', '{"text": "Drained jobs."}'
    )
    rt = runtime(store, held.tools, model, timeout=0.1)
    try:
        state = await rt.start("drain jobs", "U1")
        assert state.plan[0].timed_out == "abandoned"
        state = await rt.decide(state.id, Correct(intent="retry_step", feedback="try again"), "U1")
        step = state.plan[0]
        assert held.calls == 1, "a second copy started beside the first"
        assert step.error is not None and step.error.startswith("Not started again: the call of drain_queue")
        assert step.timed_out == "abandoned" and step.attempts == 2
        assert STILL_RUNNING in failed_step_review(state)
        late = rt.worker.late.calls()
    finally:
        held.release.set()
    await asyncio.wait(late, timeout=30)
    assert rt.worker.late.calls() == []
    # Once the earlier call is over, a retry runs the tool again (it is not held any more).
    state = await rt.decide(state.id, Correct(intent="retry_step", feedback="now"), "U1")
    assert held.calls == 2 and state.plan[0].status == "done" and state.plan[0].timed_out is None
    assert state.status == "done" and state.pending is None, "a read-only run is delivered without a result review"


async def test_async_tool_past_the_timeout_is_cancelled_and_the_review_says_it_stopped(store: AsyncStore) -> None:
    cleaned = asyncio.Event()

    @tool(risk=Risk.READ)
    async def watch_queue(queue: str) -> str:
        """Watch a queue until something happens."""
        try:
            await asyncio.Event().wait()
            return "never"
        finally:
            cleaned.set()

    rt = runtime(store, registry(watch_queue), ScriptedModel(plan_json("watch_queue", queue="jobs")), timeout=0.1)
    state = await rt.start("watch jobs", "U1")
    assert cleaned.is_set()
    assert (state.plan[0].error, state.plan[0].timed_out) == ("Timed out after 0.1 s.", "cancelled")
    text = failed_step_review(state)
    assert STOPPED in text and STILL_RUNNING not in text
    assert rt.worker.late.calls() == []


async def test_async_tool_that_catches_the_cancel_once_is_still_stopped(store: AsyncStore) -> None:
    caught, cleaned = asyncio.Event(), asyncio.Event()

    @tool(risk=Risk.READ)
    async def flush_queue(queue: str) -> str:
        """Flush a queue; on cancel, tries to finish first."""
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            caught.set()
            await asyncio.Event().wait()
        finally:
            cleaned.set()
        return "never"

    rt = runtime(store, registry(flush_queue), ScriptedModel(plan_json("flush_queue", queue="jobs")), timeout=0.1)
    state = await rt.start("flush jobs", "U1")
    assert caught.is_set() and cleaned.is_set() and state.plan[0].timed_out == "cancelled"


async def test_isolated_tool_past_the_timeout_is_killed_and_the_review_says_it_stopped(
    store: AsyncStore, tmp_path: Path
) -> None:
    tools = load_tools(["tests.agent.isolated_tools"])
    model = ScriptedModel(plan_json("sleeps_in_child", folder=str(tmp_path)))
    rt = runtime(store, tools, model, timeout=0.5)
    state = await rt.start("sleep in a child", "U1")
    assert state.plan[0].timed_out == "cancelled"
    assert STOPPED in failed_step_review(state)
    assert rt.worker.late.calls() == []


async def test_tool_that_raises_timeout_error_itself_is_not_mistaken_for_a_step_timeout(store: AsyncStore) -> None:
    @tool(risk=Risk.READ)
    def ping(host: str) -> str:
        """Ping a host."""
        raise TimeoutError(f"{host} did not answer")

    rt = runtime(store, registry(ping), ScriptedModel(plan_json("ping", host="db")), timeout=30)
    state = await rt.start("ping db", "U1")
    assert (state.plan[0].error, state.plan[0].timed_out) == ("TimeoutError: db did not answer", None)
