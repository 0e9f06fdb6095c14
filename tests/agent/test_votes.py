"""👍/👎 on a result: one person's quick clicks are recorded in order, a repeated vote once."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent.config import PolicyConfig
from agent.votes import KIND, Voted, vote
from storage.facade import AsyncStore
from tests.agent.service_tools import ALICE, BOB, usecases


async def test_votes_clicked_in_quick_succession_record_each_change_once_in_the_order_clicked(tmp_path: Path) -> None:
    async with AsyncStore(tmp_path / "t.db") as store:
        uc = usecases(store, PolicyConfig())
        state = await uc.runtime.start("bounce api", ALICE)
        # three clicks whose processing runs side by side (as after a burst of requests): up, up, down
        outcomes = await asyncio.gather(
            *(vote(store, 10.0 + n, state.id, said, BOB) for n, said in enumerate(("up", "up", "down")))
        )
        assert outcomes == [Voted("up"), Voted("up"), Voted("down")]
        votes = [(e.actor, e.payload["vote"]) for e in await store.events(state.id) if e.kind == KIND]
        assert votes == [(BOB, "up"), (BOB, "down")]
