"""Composition root: settings in, a ready Runtime out."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Protocol

import cli.platforms  # noqa: F401  (registers the installed chat platforms before any policy or run loads)
from agent.brain import LLMBrain
from agent.config import load_config
from agent.config_rules import check_tools
from agent.errors import ConfigError
from agent.llm import make_model
from agent.models import Policy
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
from storage.postgres import is_postgres_url


@dataclass
class Services:
    runtime: Runtime
    store: Store

    @cached_property
    def usecases(self) -> UseCases:
        """What a person at the terminal can do with runs (groups: the policy's own ``[groups]``). Built once."""
        return UseCases(self.runtime, self.store)


class OpenStore(Store, Protocol):
    """A store this module opened, and so closes."""

    async def close(self) -> None: ...


DEMO_WORLD_FILE = "tandem-demo.db"
"""Where the demo toolset keeps its simulated ops world when TANDEM_DB is PostgreSQL (a SQLite file, per host)."""


def world_file(settings: CoreSettings) -> str | None:
    """The SQLite file of the demo world, only when the demo toolset is loaded: TANDEM_DB's own file for
    SQLite; beside a PostgreSQL database, its own file in the working directory."""
    if not settings.demo:
        return None
    return DEMO_WORLD_FILE if is_postgres_url(settings.db) else settings.db


def database_exists(db: str) -> bool:
    """Whether ``TANDEM_DB`` names a database that is there: a SQLite file that exists, or any PostgreSQL URL
    (the server says whether it can be reached when the store opens)."""
    return is_postgres_url(db) or Path(db).exists()


async def connect_store(db: str, *, inline: bool = False) -> OpenStore:
    """The run store ``TANDEM_DB`` names, opened: PostgreSQL for a ``postgresql://`` URL, else a SQLite file
    (the one place that picks the backend). ``inline``: SQLite is called on the caller's own thread, which
    owns the connection (see :class:`storage.facade.AsyncStore`; a runtime loop's store)."""
    if not is_postgres_url(db):
        return await AsyncStore(db, inline=inline).open()
    try:
        from storage.postgres.store import PgStore
    except ImportError as exc:
        raise ConfigError(
            f"TANDEM_DB names a PostgreSQL database, but its driver is not installed ({exc.name}): "
            "pip install 'tandem[postgres]'."
        ) from None
    return await PgStore(db).open()


@asynccontextmanager
async def open_store(db: str) -> AsyncIterator[Store]:
    """The run store ``db`` names (see :func:`connect_store`), open for the block."""
    store = await connect_store(db)
    try:
        yield store
    finally:
        await store.close()


@asynccontextmanager
async def open_services(
    settings: CoreSettings,
    *,
    observers: list[Observer] | None = None,
    policy: Policy | None = None,
    inline: bool = False,
) -> AsyncIterator[Services]:
    config = load_config(settings.config)  # validated before anything starts
    store = await connect_store(settings.db, inline=inline)
    world_db = world = None
    tool_context = None
    if (world_path := world_file(settings)) is not None:
        # The demo world lives in a SQLite file (TANDEM_DB's own, when that is SQLite), on a connection
        # of its own (tools run in worker threads).
        world_db = connect(world_path, check_same_thread=False)
        migrate_world(world_db)
        world = SqliteOpsWorld(world_db)
        tool_context = lambda: use_world(world)  # noqa: E731
    tools = load_tools(settings.tool_modules)
    servers = AsyncExitStack()
    try:
        if config.mcp.servers:  # only then is the MCP SDK imported
            from agent.mcptools.toolset import mcp_toolsets

            await servers.enter_async_context(mcp_toolsets(config, tools))
        check_tools(config.rules.always_allow, tools)  # a deploy or an unknown tool in always_allow stops here
        runtime = Runtime(
            store,
            LLMBrain(make_model(settings.model, settings.llm_api_base, settings.llm_timeout)),
            tools,
            policy=policy or config.run_policy(step_timeout=settings.step_timeout),
            config=config,
            observers=observers,
            tool_context=tool_context,
            lease_ttl=settings.step_lease,
        )
        yield Services(runtime=runtime, store=store)
    finally:
        await servers.aclose()
        if world is not None:
            world.close()
        if world_db is not None:
            world_db.close()
        await store.close()
