"""The ack benchmark, tiny: every click answered 200, and the approvals really approved.

Behaviour only; the figures are ``python -m bench.ack``'s business.
"""

from __future__ import annotations

from pathlib import Path

from bench.ack import BARE, CLICKER, TANDEM, Plan, run_bench, table
from storage.facade import AsyncStore
from workspace.state import WorkspaceState


async def test_ack_bench_tiny_run_every_click_acked_and_approvals_applied(tmp_path: Path) -> None:
    plan = Plan(requests=20, concurrency=5, rounds=2, warmup=5, decided_share=0.25)
    result = await run_bench(plan, tmp_path, log=lambda _line: None)

    for target in (TANDEM, BARE):
        batches = result.timed(target)
        assert [b.round for b in batches] == [1, 2]
        statuses = [s for b in batches for s in b.statuses]
        assert statuses == [200] * 20, f"{target}: {statuses} {[b.errors for b in batches]}"
        assert all(t is not None and t > 0 for b in batches for t in b.latencies)
    assert result.duplicates >= 2 and len(result.approved) + result.duplicates == 20
    assert len(set(result.approved)) == len(result.approved), "each real click approves a different pending review"

    # Read back from the bench's SQLite file, independently of the bench's own check.
    clicker = WorkspaceState().user(CLICKER).id
    async with AsyncStore(result.db) as store:
        for review_id in result.approved:
            record = await store.get_review(review_id)
            assert record is not None
            assert record.status == "answered" and record.answered_by == clicker
            assert record.answer is not None and record.answer["kind"] == "approve"
            state, _ = await store.load(record.run_id)
            assert state.pending is None or state.pending.id != review_id, "the run moved on past the approval"

    text = table(result, plan)
    pooled = [line.split()[:3] for line in text.splitlines() if " all " in line]
    assert pooled == [["tandem", "all", "20"], ["bare", "bolt", "all"]]
    assert "round 2: Tandem p99 / bare p99" in text and "pooled:  Tandem p99 / bare p99" in text
