"""The runtime on a real SQLite file, with a scripted brain and counting tools."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent.config import AnchorsRule, PolicyConfig
from agent.errors import NoPendingReview, StaleDecision
from agent.models import Approve, Correct, Policy, Reading
from storage.facade import AsyncStore
from tests.agent.runtime_kit import GATE_FIRST, RISKY_PLAN, Counting, FakeBrain, make


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[AsyncStore]:
    async with AsyncStore(tmp_path / "t.db") as s:
        yield s


@pytest.fixture
def counting() -> Counting:
    return Counting()


async def test_start_pauses_at_plan_review_and_persists_the_review(store: AsyncStore, counting: Counting) -> None:
    rt = make(store, counting, RISKY_PLAN)
    state = await rt.start("ship api", "U1")
    assert state.status == "awaiting_review" and state.pending and state.pending.anchor == "after_plan"
    loaded, version = await store.load(state.id)
    assert loaded == state and version == 2
    record = await store.get_review(state.pending.id)
    assert record and record.status == "pending"
    kinds = [e.kind for e in await store.events(state.id)]
    assert kinds == ["started", "plan_proposed", "ask_human"]


async def test_approvals_walk_the_run_to_done(store: AsyncStore, counting: Counting) -> None:
    rt = make(store, counting, RISKY_PLAN)
    state = await rt.start("ship api", "U1")
    anchors = []
    while not state.finished:
        assert state.pending is not None
        anchors.append(state.pending.anchor)
        state = await rt.decide(state.id, Approve(), "U1")
    # the requester decides everything here, so approving the plan (which shows ship's exact params) approves ship too
    assert anchors == ["after_plan", "before_result"]
    assert state.step(3).approved_by == "U1" and state.step(3).approved_digest == state.step(3).digest
    assert state.status == "done" and counting.calls == {"look": 2, "ship": 1}
    assert state.output == "look: api is fine; look: db is fine; ship: api now at 2.0"


async def test_second_decision_on_same_review_changes_nothing_and_names_first(
    store: AsyncStore, counting: Counting
) -> None:
    rt = make(store, counting, RISKY_PLAN)
    state = await rt.start("ship api", "alice")
    review = state.pending
    assert review is not None
    await rt.decide(state.id, Approve(), "alice", review_id=review.id)
    before = await store.load(state.id)
    with pytest.raises(StaleDecision, match="Already approved by ⟦@alice⟧") as info:
        await rt.decide(state.id, Approve(), "bob", review_id=review.id)
    assert info.value.decided_by == "alice"
    assert await store.load(state.id) == before


async def test_fifty_concurrent_approvals_run_the_risky_step_once(store: AsyncStore, counting: Counting) -> None:
    config = PolicyConfig(approvers={"write": [f"U{i}" for i in range(50)]})
    rt = make(store, counting, [("ship", {"service": "api", "version": "2.0"})], policy=GATE_FIRST, config=config)
    state = await rt.start("ship api", "U1")
    assert state.pending is not None and state.pending.anchor == "before_risky_step"
    review_id = state.pending.id
    results = await asyncio.gather(
        *(rt.decide(state.id, Approve(), f"U{i}", review_id=review_id) for i in range(50)), return_exceptions=True
    )
    stale = [r for r in results if isinstance(r, StaleDecision)]
    assert len(stale) == 49
    assert counting.calls["ship"] == 1
    approvals = [e for e in await store.events(state.id) if e.kind == "decided"]
    assert len(approvals) == 1


async def test_concurrent_approvals_from_two_runtimes_on_one_file_apply_once(
    store: AsyncStore, counting: Counting, tmp_path: Path
) -> None:
    config = PolicyConfig(approvers={"deploy": ["alice", "bob"]})
    rt1 = make(store, counting, [("ship", {"service": "api", "version": "2.0"})], policy=GATE_FIRST, config=config)
    state = await rt1.start("ship api", "U1")
    assert state.pending is not None and state.pending.anchor == "before_risky_step"
    async with AsyncStore(tmp_path / "t.db") as other:
        rt2 = make(other, counting, config=config)
        results = await asyncio.gather(
            rt1.decide(state.id, Approve(), "alice", review_id=state.pending.id),
            rt2.decide(state.id, Approve(), "bob", review_id=state.pending.id),
            return_exceptions=True,
        )
    assert sum(isinstance(r, StaleDecision) for r in results) == 1, results
    assert counting.calls["ship"] == 1


async def test_tool_error_is_surfaced_at_a_review(store: AsyncStore, counting: Counting) -> None:
    rt = make(store, counting, [("broken", {"service": "db"}), ("look", {"service": "db"})])
    state = await rt.start("check db", "U1")
    assert state.pending is not None and state.pending.anchor == "step_failed"
    assert state.plan[0].error == "RuntimeError: db unreachable"
    assert counting.calls == {}


async def test_step_timeout_is_recorded_as_a_failure(store: AsyncStore, counting: Counting) -> None:
    rt = make(store, counting, [("slow", {"seconds": 5})], policy=Policy(step_timeout=0.05))
    state = await rt.start("sleep", "U1")
    assert state.pending is not None and state.pending.anchor == "step_failed"
    assert state.plan[0].error == "Timed out after 0.05 s."


async def test_cancel_while_a_step_runs_stops_the_run(store: AsyncStore, counting: Counting) -> None:
    rt = make(store, counting, [("slow", {"seconds": 0.3}), ("look", {"service": "x"})])
    task = asyncio.ensure_future(rt.start("sleep", "U1"))
    await asyncio.wait_for(counting.slow_started.wait(), timeout=10)  # the first step is in flight
    runs = await store.list_runs()
    cancelled = await rt.cancel(runs[0].id, "U1", "wrong window")
    assert cancelled.status == "cancelled"
    final = await task
    assert final.status == "cancelled"
    assert "look" not in counting.calls
    assert (await store.load(final.id))[0].status == "cancelled"


async def test_free_text_is_classified_and_applied(store: AsyncStore, counting: Counting) -> None:
    brain = FakeBrain([list(RISKY_PLAN)], Reading(intent="replan", reason="wants another way", confidence=0.8))
    brain.plans.append([("look", {"service": "auth"})] * 3)
    rt = make(store, counting, brain=brain)
    state = await rt.start("ship api", "U1")
    reading, state = await rt.say(state.id, "no, look at auth instead", "U1")
    assert reading is not None and reading.intent == "replan"
    assert brain.classified == ["no, look at auth instead"]
    assert state.status == "done", "the new plan only reads: it runs and is delivered without a review"
    assert [s.params["service"] for s in state.plan] == ["auth", "auth", "auth"]
    assert state.feedback[0].text == "no, look at auth instead" and state.feedback[0].by == "U1"


async def test_decision_without_pending_review_is_refused(store: AsyncStore, counting: Counting) -> None:
    rt = make(store, counting, [("look", {"service": "x"})])
    state = await rt.start("look", "U1")
    assert state.status == "done"
    with pytest.raises(StaleDecision, match="already done"):
        await rt.decide(state.id, Approve(), "U1")
    with pytest.raises(NoPendingReview, match="Unknown review"):
        await rt.decide(state.id, Approve(), "U1", review_id="nope")


async def test_retry_step_revises_params_and_asks_again_for_the_risky_step(
    store: AsyncStore, counting: Counting
) -> None:
    separate = PolicyConfig(anchors=AnchorsRule(merge_gate=False))  # the plan's approval leaves the gate to ask
    rt = make(store, counting, [("ship", {"service": "api", "version": "2.0"})], config=separate)
    state = await rt.start("ship", "U1")
    state = await rt.decide(state.id, Approve(), "U1")
    assert state.pending is not None and state.pending.anchor == "before_risky_step"
    state = await rt.decide(state.id, Correct(intent="retry_step", feedback="use 9.9"), "U1")
    assert state.pending is not None and state.pending.anchor == "before_risky_step"
    assert state.plan[0].params["version"] == "9.9"
    assert "ship" not in counting.calls
