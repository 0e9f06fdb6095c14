"""A handoff created (read, cancelled) from the server's loop goes to the runtime's loop once, not once per
store call: each hop queues behind whatever the runtime is doing (sending cards, webhooks), so hops add up to
the create's time."""

from __future__ import annotations

from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from agent.asking import Asking, AskRequest, HandoffView
from agent.brain import LLMBrain
from agent.offline import OfflineModel
from agent.runtime import Runtime
from agent.runtime.home import RuntimeLoop, forwarded
from agent.tokens import mint
from agent.tools import ToolRegistry
from agent.usecases import UseCases
from storage.facade import AsyncStore

T = TypeVar("T")
ASK = AskRequest(
    prompt="Page the database team?", input_type="confirm", channel="C0OPS", assignees=["U0ALICE"], idempotency_key="k1"
)


class CountedLoop(RuntimeLoop):
    """A runtime loop that counts the calls reaching it from other loops."""

    hops = 0

    async def call(self, coro: Coroutine[Any, Any, T]) -> T:
        if not self.here():
            CountedLoop.hops += 1
        return await super().call(coro)


async def test_asking_create_read_cancel_from_the_server_loop_each_hop_to_the_runtime_loop_once(tmp_path: Path) -> None:
    async with (
        CountedLoop.running("asking-home") as home,
        home.context(AsyncStore(tmp_path / "t.db", inline=True)) as db,
    ):
        store = forwarded(home, db)  # the store as the server's loop reaches it (as tandem serve wires it)
        runtime = Runtime(db, LLMBrain(OfflineModel()), ToolRegistry())
        runtime.home = home
        asking = Asking(store, runtime, UseCases(runtime, store))
        token = mint("ci", ["handoffs:write", "handoffs:read"], "ops", runtime.clock()).stored
        CountedLoop.hops = 0

        created = await asking.ask(token, ASK)

        assert (created.new, created.handoff.status, CountedLoop.hops) == (True, "pending", 1)
        again = await asking.ask(token, ASK)  # the same idempotency key: the same handoff, still one hop
        assert (again.new, again.handoff.id, CountedLoop.hops) == (False, created.handoff.id, 2)
        read = await asking.read(token, created.handoff.id)
        assert (read.status if isinstance(read, HandoffView) else read, CountedLoop.hops) == ("pending", 3)
        cancelled = await asking.cancel(token, created.handoff.id)
        assert (cancelled.status if isinstance(cancelled, HandoffView) else cancelled, CountedLoop.hops) == (
            "cancelled",
            4,
        )
