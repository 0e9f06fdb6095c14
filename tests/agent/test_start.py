"""The start use case: a run followed in a chat is stored with its card as its first outbox row; nothing is
posted from the call, and a run with no task is not started."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent.brain import LLMBrain
from agent.config import PolicyConfig
from agent.models import Policy, Terminal
from agent.offline.model import OfflineModel
from agent.runtime import Runtime
from agent.usecases import Applied, NotApplied, UseCases
from bot.origin import SlackThread
from feishu.origin import FeishuChat
from storage.facade import AsyncStore
from tests.agent.service_tools import ALICE, TOOLS


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[AsyncStore]:
    async with AsyncStore(tmp_path / "t.db") as s:
        yield s


def usecases(store: AsyncStore) -> UseCases:
    return UseCases(Runtime(store, LLMBrain(OfflineModel()), TOOLS, policy=Policy(), config=PolicyConfig()), store)


@pytest.mark.parametrize("origin", [SlackThread(channel_id="C0OPS"), FeishuChat(chat_id="oc_ops")])
async def test_start_in_a_chat_stores_the_run_with_its_card_first_and_no_thread_yet(
    store: AsyncStore, origin: SlackThread | FeishuChat
) -> None:
    started = await usecases(store).start("peek at api", ALICE, origin)
    assert isinstance(started, Applied)
    loaded, _ = await store.load(started.state.id)
    assert loaded.origin.thread is None, "no thread before its card is posted"
    rows = await store.due_deliveries(origin.kind, 1e12, 60)
    assert rows[0].message.kind == "started" and all(r.message.kind != "started" for r in rows[1:])


async def test_start_from_the_terminal_has_no_card(store: AsyncStore) -> None:
    started = await usecases(store).start("peek at api", ALICE)
    assert isinstance(started, Applied) and started.state.origin == Terminal()
    assert await store.delivery_status(started.state.id, "started", None) is None


async def test_start_without_a_task_is_not_applied_and_stores_nothing(store: AsyncStore) -> None:
    outcome = await usecases(store).start("   ", ALICE, SlackThread(channel_id="C0OPS"))
    assert isinstance(outcome, NotApplied) and "needs a task" in outcome.message
    assert await store.list_runs() == []
