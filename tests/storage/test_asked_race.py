"""One idempotency key asked at once by two replicas on the same database (each its own connection and runtime)
is one handoff, on both backends: the run is created only if its id is free, and the loser reads the winner's."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

import pytest

from agent.asking import Asking, AskRequest, Created
from agent.brain import LLMBrain
from agent.errors import RunExists
from agent.machine.asked import AskTerms
from agent.models import AuditEvent, Handoff, Origin, Outbound, RunStarted, RunState
from agent.models.tokens import ApiToken
from agent.offline import OfflineModel
from agent.ports import Store
from agent.runtime import Runtime
from agent.tokens import mint
from agent.tools import ToolRegistry
from agent.usecases import UseCases
from bot.origin import SlackThread
from storage.facade import AsyncStore
from storage.postgres.store import PgStore
from tests.pgserver import PgServer
from tests.storage.conftest import BACKENDS

T0 = 1_700_000_000.0
ASK = AskRequest(
    prompt="Fail over the primary database?",
    input_type="confirm",
    channel="C0OPS",
    assignees=["U0ALICE"],
    idempotency_key="failover-12",
)


class Together(Runtime):
    """A replica's runtime that creates the asked run only once every replica has found it missing (so each
    of them tries to create it: the race, every time)."""

    def __init__(self, store: Store, barrier: asyncio.Barrier) -> None:
        super().__init__(store, LLMBrain(OfflineModel()), ToolRegistry(), clock=lambda: T0)
        self.barrier = barrier

    async def ask(self, run_id: str, requester: str, origin: Origin, handoff: Handoff, terms: AskTerms) -> RunState:
        await self.barrier.wait()
        return await super().ask(run_id, requester, origin, handoff, terms)


@asynccontextmanager
async def replicas(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[list[Store]]:
    """Two stores on one database, each with its own connection (pool): two replicas' views of it."""
    async with AsyncExitStack() as stack:
        if backend == "sqlite":
            stores: list[Store] = [await stack.enter_async_context(AsyncStore(tmp_path / "shared.db")) for _ in "ab"]
        else:
            server: PgServer = request.getfixturevalue("pg_server")
            url = server.schema()
            stores = [await stack.enter_async_context(PgStore(url)) for _ in "ab"]
        yield stores


@pytest.mark.parametrize("backend", BACKENDS)
async def test_asked_key_by_two_replicas_at_once_is_one_handoff_with_one_card(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    async with replicas(backend, tmp_path, request) as stores:
        made = mint("ci", ["handoffs:write"], "ops", T0)
        assert await stores[0].create_token(made.stored)
        token: ApiToken = made.stored
        barrier = asyncio.Barrier(len(stores))
        askings = []
        for store in stores:
            runtime = Together(store, barrier)
            askings.append(Asking(store, runtime, UseCases(runtime, store)))

        first, second = await asyncio.wait_for(asyncio.gather(*(a.ask(token, ASK) for a in askings)), 30)

        assert isinstance(first, Created) and isinstance(second, Created)
        assert first.handoff.id == second.handoff.id and first.handoff.status == second.handoff.status == "pending"
        assert sorted([first.new, second.new]) == [False, True], "one of them asked it"
        assert [r.id for r in await stores[1].list_runs()] == [first.handoff.id]
        cards = [d for d in await stores[1].due_deliveries("slack", T0 + 60, 30) if isinstance(d.message, RunStarted)]
        assert len(cards) == 1, "its card is posted once"
        started = [e for e in await stores[0].events(first.handoff.id) if e.kind == "started"]
        assert len(started) == 1


async def test_run_created_with_a_taken_id_raises_run_exists_and_writes_nothing(store: Store) -> None:
    origin = SlackThread(channel_id="C0OPS", thread_ts="")
    state = RunState(id="h1", task="first", requester="token:ci", created_at=T0, updated_at=T0, origin=origin)
    started = AuditEvent(at=T0, actor="token:ci", kind="started", payload={})
    await store.create(state, [started], outbox=Outbound("slack", [RunStarted()]))

    again = state.model_copy(update={"task": "second", "updated_at": T0 + 1})
    with pytest.raises(RunExists, match="h1"):
        await store.create(again, [started], outbox=Outbound("slack", [RunStarted()]))

    kept, version = await store.load("h1")
    assert (kept.task, version) == ("first", 1)
    assert len(await store.events("h1")) == 1
    assert len(await store.due_deliveries("slack", T0 + 60, 30)) == 1
