"""Composition root: settings in, a ready Runtime out."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from agent.brain import LLMBrain
from agent.config import load_config
from agent.llm import make_model
from agent.models import Policy, Risk
from agent.ports import Observer, Store
from agent.runtime import Runtime
from agent.settings import CoreSettings
from agent.tools import load_tools
from agent.usecases import UseCases
from demo.store import SqliteOpsWorld
from demo.store import migrate as migrate_world
from demo.world import use_world
from storage.db import connect
from storage.facade import AsyncStore


@dataclass
class Services:
    runtime: Runtime
    store: Store

    @property
    def usecases(self) -> UseCases:
        """What a person at the terminal can do with runs (groups: the policy's own ``[groups]``)."""
        return UseCases(self.runtime, self.store)


@asynccontextmanager
async def open_store(path: str) -> AsyncIterator[Store]:
    """The run store on ``path``, open for the block (the one place that picks the backend)."""
    async with AsyncStore(path) as store:
        yield store


@asynccontextmanager
async def open_services(
    settings: CoreSettings, *, observers: list[Observer] | None = None, policy: Policy | None = None
) -> AsyncIterator[Services]:
    config = load_config(settings.config)  # validated before anything starts
    store = await AsyncStore(settings.db).open()
    world_db = None
    if settings.demo:
        # The demo world lives in the same file, on a connection of its own (tools run in worker threads).
        world_db = connect(settings.db, check_same_thread=False)
        migrate_world(world_db)
        world = SqliteOpsWorld(world_db)
    runtime = Runtime(
        store,
        LLMBrain(make_model(settings.model, settings.llm_api_base)),
        load_tools(settings.tool_modules),
        policy=policy
        or Policy(step_timeout=settings.step_timeout, confirm_threshold=Risk.parse(config.confirm_threshold)),
        config=config,
        observers=observers,
        tool_context=(lambda: use_world(world)) if world_db is not None else None,
        lease_ttl=settings.step_lease,
    )
    try:
        yield Services(runtime=runtime, store=store)
    finally:
        if world_db is not None:
            world_db.close()
        await store.close()
