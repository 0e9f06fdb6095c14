"""A wait for a handoff ends as soon as it is answered in this process, whichever loop or thread the runtime
works on; it does not wait for its next read of the run."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from agent.asking import Asking, AskRequest, HandoffView
from agent.brain import LLMBrain
from agent.models import RunState
from agent.offline import OfflineModel
from agent.ports import Change
from agent.runtime import Runtime
from agent.tokens import mint
from agent.tools import ToolRegistry
from agent.usecases import UseCases
from agent.waking import Wakes
from bot.origin import SlackThread
from storage.facade import AsyncStore

ASK = AskRequest(prompt="Page the database team?", input_type="confirm", channel="C0OPS", assignees=["U0ALICE"])


async def test_handoff_wait_answered_in_this_process_returns_at_once_not_at_its_next_read(tmp_path: Path) -> None:
    async with AsyncStore(tmp_path / "tandem.db") as store:
        runtime = Runtime(store, LLMBrain(OfflineModel()), ToolRegistry())
        usecases = UseCases(runtime, store)
        asking = Asking(store, runtime, usecases)
        asking.poll = 3600.0  # it would read the run again only in an hour
        token = mint("ci", ["handoffs:write"], "ops", runtime.clock()).stored
        created = await asking.ask(token, ASK)
        waiting = asyncio.create_task(asking.read(token, created.handoff.id, wait=30))
        state, _ = await store.load(created.handoff.id)
        assert state.pending is not None and not waiting.done()

        await usecases.answer(state.pending.id, "yes", "U0ALICE")

        read = await asyncio.wait_for(waiting, 5)
        assert isinstance(read, HandoffView) and (read.status, read.answer, read.by) == ("resolved", True, "U0ALICE")


async def test_wakes_change_committed_on_another_threads_loop_wakes_the_watcher_here() -> None:
    wakes = Wakes()
    origin = SlackThread(channel_id="C0OPS", thread_ts="")
    change = Change(RunState(id="h1", task="t", requester="token:ci", created_at=0, updated_at=0, origin=origin), [])
    with wakes.watching("h1") as changed, wakes.watching("h2") as other:
        elsewhere = threading.Thread(target=lambda: asyncio.run(wakes.on_change(change)))
        elsewhere.start()
        await asyncio.wait_for(changed.wait(), 5)
        elsewhere.join()
        assert not other.is_set(), "only who watches that run"
    changed.clear()
    await wakes.on_change(change)  # (on this loop it would set it at once)
    assert not changed.is_set(), "nobody watches once the wait is over"
