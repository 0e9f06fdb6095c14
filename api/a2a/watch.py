"""Following a task as its run moves: the runtime tells :class:`Changes` of every stored transition (on its own
loop), which wakes the streams following that run; a stream also looks again every :data:`POLL` seconds, for a
run moved by another process."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field

from a2a.server.events.event_queue import Event
from a2a.types import TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent

from agent.models import RunState
from agent.ports import Change, Store
from agent.runtime import Runtime
from agent.usecases import UseCases
from api.a2a import tasks

POLL = 1.0
ENDED = {TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_FAILED}


class Changes:
    """An observer of the runtime: wakes whoever follows a run when it changes (from any thread's loop)."""

    def __init__(self) -> None:
        self._following: dict[str, set[tuple[asyncio.AbstractEventLoop, asyncio.Event]]] = {}

    async def on_change(self, change: Change) -> None:
        for loop, woken in list(self._following.get(change.state.id, ())):
            with suppress(RuntimeError):  # its loop has closed: the stream is gone
                loop.call_soon_threadsafe(woken.set)

    @contextmanager
    def following(self, run_id: str) -> Iterator[asyncio.Event]:
        """An event set whenever run ``run_id`` changes, while in this block."""
        entry = (asyncio.get_running_loop(), asyncio.Event())
        self._following.setdefault(run_id, set()).add(entry)
        try:
            yield entry[1]
        finally:
            left = self._following.get(run_id, set())
            left.discard(entry)
            if not left:
                self._following.pop(run_id, None)


@dataclass
class Door:
    """What the A2A door works with: the bot's store, runtime and use cases."""

    store: Store
    runtime: Runtime
    usecases: UseCases
    changes: Changes = field(default_factory=Changes)


def _key(state: RunState) -> tuple[str, str | None, int]:
    pending = state.pending
    return state.phase, pending.id if pending is not None else None, len(pending.approvals) if pending else 0


async def updates(door: Door, state: RunState, context: str, *, until_input: bool) -> AsyncGenerator[Event]:
    """The task now, then each change of its status (its result before it completes), until it ends; with
    ``until_input``, also until it waits for an answer (as a streamed ``SendMessage`` does)."""
    safety = door.runtime.safety
    with door.changes.following(state.id) as woken:
        yield tasks.task(state, safety, context)
        shown = _key(state)
        while True:
            status = tasks.status(state, safety, context)
            if status.state in ENDED or (until_input and status.state == TaskState.TASK_STATE_INPUT_REQUIRED):
                return
            with suppress(TimeoutError):
                async with asyncio.timeout(POLL):
                    await woken.wait()
            woken.clear()
            state, _ = await door.store.load(state.id)
            if _key(state) == shown:
                continue
            shown = _key(state)
            status = tasks.status(state, safety, context)
            found = tasks.result(state)
            if found is not None:
                yield TaskArtifactUpdateEvent(task_id=state.id, context_id=context, artifact=found, last_chunk=True)
            yield TaskStatusUpdateEvent(task_id=state.id, context_id=context, status=status)
