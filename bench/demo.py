"""A runtime over the demo tools, for benches that play runs as people would: a SQLite file, the product's
brain with the offline model, the demo tools on a fresh in-memory ops world."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from agent.brain import LLMBrain
from agent.config import PolicyConfig
from agent.offline import OfflineModel
from agent.runtime import Runtime
from agent.tools import load_tools
from demo.world import InMemoryWorld, seed, use_world
from storage.facade import AsyncStore


@asynccontextmanager
async def demo_runtime(path: Path, config: PolicyConfig) -> AsyncIterator[Runtime]:
    """A runtime on a fresh database at ``path`` under ``config``, its tools acting on a fresh world."""
    world = InMemoryWorld()
    seed(world, time.time())
    async with AsyncStore(path) as store:
        yield Runtime(
            store,
            LLMBrain(OfflineModel()),
            load_tools(["demo.tools"]),
            config=config,
            tool_context=lambda: use_world(world),
        )
