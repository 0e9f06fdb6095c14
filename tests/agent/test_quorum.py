"""Quorum on approvals, bound to the exact params; refusals change nothing but the audit."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent.config import PolicyConfig
from agent.errors import InvalidDecision, NotAllowed
from agent.models import Approve, Correct
from storage.facade import AsyncStore
from tests.agent.runtime_kit import GATE_FIRST, Counting, make

SHIP = [("ship", {"service": "api", "version": "2.0"})]
THREE = ["U0BOB", "U0CAROL", "U0DAVE"]


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[AsyncStore]:
    async with AsyncStore(tmp_path / "q.db") as s:
        yield s


@pytest.fixture
def counting() -> Counting:
    return Counting()


@pytest.mark.parametrize(("quorum", "needed"), [("any", 1), ("all", 3), (2, 2)])
async def test_quorum_any_all_and_two_of_three(
    store: AsyncStore, counting: Counting, quorum: object, needed: int
) -> None:
    config = PolicyConfig(approvers={"deploy": THREE}, quorum={"deploy": quorum})  # type: ignore[dict-item]
    rt = make(store, counting, SHIP, policy=GATE_FIRST, config=config)
    state = await rt.start("ship api", "U0ALICE")
    assert state.pending is not None and state.pending.anchor == "before_risky_step"
    for i, approver in enumerate(THREE[:needed]):
        assert "ship" not in counting.calls, f"ran after {i} of {needed} approvals"
        state = await rt.decide(state.id, Approve(), approver)
    assert counting.calls["ship"] == 1
    assert state.plan[0].status == "done"
    decided = [e for e in await store.events(state.id) if e.kind == "decided"]
    assert [e.actor for e in decided] == THREE[:needed]


async def test_same_approver_twice_does_not_count_twice(store: AsyncStore, counting: Counting) -> None:
    config = PolicyConfig(approvers={"deploy": THREE}, quorum={"deploy": 2})
    rt = make(store, counting, SHIP, policy=GATE_FIRST, config=config)
    state = await rt.start("ship api", "U0ALICE")
    await rt.decide(state.id, Approve(), "U0BOB")
    with pytest.raises(InvalidDecision, match="already approved"):
        await rt.decide(state.id, Approve(), "U0BOB")
    assert "ship" not in counting.calls


async def test_changed_params_need_fresh_approvals(store: AsyncStore, counting: Counting) -> None:
    config = PolicyConfig(approvers={"deploy": THREE}, quorum={"deploy": 2})
    rt = make(store, counting, SHIP, policy=GATE_FIRST, config=config)
    state = await rt.start("ship api", "U0ALICE")
    first = state.pending
    state = await rt.decide(state.id, Approve(), "U0BOB")
    assert state.pending is not None and len(state.pending.approvals) == 1
    # carol rejects with feedback: the step is revised, bob's approval was for the old params
    state = await rt.decide(state.id, Correct(intent="retry_step", feedback="use 9.9"), "U0CAROL")
    assert state.pending is not None and state.pending.id != first.id  # type: ignore[union-attr]
    assert state.pending.approvals == [] and state.plan[0].params["version"] == "9.9"
    state = await rt.decide(state.id, Approve(), "U0BOB")
    assert "ship" not in counting.calls, "one approval of the new params is not enough"
    state = await rt.decide(state.id, Approve(), "U0DAVE")
    assert counting.calls["ship"] == 1


async def test_refused_decision_changes_nothing_and_is_audited(store: AsyncStore, counting: Counting) -> None:
    config = PolicyConfig(approvers={"deploy": ["U0BOB"]})
    rt = make(store, counting, SHIP, policy=GATE_FIRST, config=config)
    state = await rt.start("ship api", "U0ALICE")
    before = await store.load(state.id)
    with pytest.raises(NotAllowed, match="Only @U0BOB can approve deploy steps"):
        await rt.decide(state.id, Approve(), "U0CAROL")
    assert await store.load(state.id) == before
    refused = [e for e in await store.events(state.id) if e.kind == "refused"]
    assert refused[0].actor == "U0CAROL" and refused[0].payload["decision"] == "approve"
