"""Each channel's dependencies build their use cases once, over the channel's own runtime, store and directory."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, cast

import pytest

from agent.models import Policy, RunState
from agent.runtime import Runtime
from agent.tools import ToolRegistry
from agent.usecases import UseCases
from bot.deps import Deps
from bot.origin import SlackThread
from cli.wiring import Services
from feishu.deps import FeishuDeps
from storage.facade import AsyncStore

NONE: Any = None


class Groups:
    """A channel directory: who is in which group."""

    async def groups_of(self, user: str) -> list[str]:
        return ["S0OPS"] if user == "U0BOB" else []


def slack(runtime: Runtime, store: AsyncStore, groups: Groups) -> UseCases:
    deps = Deps(runtime=runtime, store=store, channel=NONE, directory=cast(Any, groups), delivery=NONE)
    assert deps.usecases is deps.usecases
    return deps.usecases


def feishu(runtime: Runtime, store: AsyncStore, groups: Groups) -> UseCases:
    deps = FeishuDeps(
        settings=NONE,
        runtime=runtime,
        store=store,
        api=NONE,
        channel=NONE,
        delivery=NONE,
        background=NONE,
        directory=cast(Any, groups),
    )
    assert deps.usecases is deps.usecases
    return deps.usecases


def terminal(runtime: Runtime, store: AsyncStore, groups: Groups) -> UseCases:
    services = Services(runtime=runtime, store=store)
    assert services.usecases is services.usecases
    return services.usecases


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[AsyncStore]:
    async with AsyncStore(tmp_path / "t.db") as s:
        yield s


@pytest.mark.parametrize("build", [slack, feishu, terminal])
async def test_usecases_of_channel_deps_read_twice_are_one_object_over_the_channel_services(
    store: AsyncStore, build: Callable[[Runtime, AsyncStore, Groups], UseCases]
) -> None:
    runtime = Runtime(store, NONE, ToolRegistry(), policy=Policy())
    state = RunState(id="r1", task="check api", requester="U0ALICE", created_at=1.0, updated_at=1.0)
    state.origin = SlackThread(channel_id="C0OPS", thread_ts="1.0")
    await store.create(state, [])
    groups = Groups()
    usecases = build(runtime, store, groups)
    assert usecases.runtime is runtime and usecases.store is store
    assert [s.id for s in await usecases.open_runs("C0OPS")] == ["r1"]
    if build is not terminal:
        assert await usecases.groups_of("U0BOB") == ["S0OPS"]
