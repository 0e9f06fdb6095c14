"""The scheduler benchmark handles exactly the expired reviews (behaviour only; no timing assertions)."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from agent.config import Strategy
from agent.runtime import Runtime
from bench.results import BenchFailure
from bench.scheduler import (
    NOW,
    T0,
    TIMEOUT_STEP,
    BatchedStore,
    Build,
    Clock,
    main,
    plan_once,
    policy,
    populate,
    resume_compare,
    snapshot,
    spread,
    timeout_pass,
    verify,
)
from bench.workload import choose_brain, registry
from storage.facade import AsyncStore


def _counter() -> Callable[[], str]:
    ids = itertools.count()
    return lambda: f"id{next(ids)}"


@pytest.mark.parametrize(("n", "k"), [(50, 10), (10_000, 1_000), (7, 3), (5, 0), (5, 5)])
def test_spread_any_sizes_picks_exactly_k(n: int, k: int) -> None:
    assert len(spread(n, k)) == k


@pytest.mark.parametrize(("strategy", "build"), [("cancel", "runtime"), ("pause", "batched")])
async def test_timeout_pass_fifty_paused_ten_expired_handles_exactly_those(
    tmp_path: Path, strategy: Strategy, build: Build
) -> None:
    tools = registry()
    _, brain, _ = await choose_brain(tools)
    path = tmp_path / "t.db"

    result = await timeout_pass(path, brain, tools, 50, 10, strategy=strategy, build=build, limit=4)

    assert result.handled == [4, 4, 2, 0]
    assert len(result.cohort.expired) == 10
    assert len(result.cohort.waiting) == 40
    db = sqlite3.connect(path)
    runs = dict(db.execute("SELECT id, status FROM runs").fetchall())
    reviews = {r[0]: r[1:] for r in db.execute("SELECT run_id, status, deadline FROM reviews")}
    for run_id in result.cohort.waiting:
        assert runs[run_id] == "awaiting_review"
        status, deadline = reviews[run_id]
        assert status == "pending"
        assert deadline > NOW
    for run_id in result.cohort.expired:
        if strategy == "cancel":
            assert runs[run_id] == "cancelled"
            status, deadline = reviews[run_id]
            assert status == "answered"
            assert deadline <= NOW
        else:
            assert runs[run_id] == "awaiting_review"
            assert reviews[run_id] == ("pending", None)
    db.close()


async def test_batched_store_writes_the_same_rows_as_the_runtime(tmp_path: Path) -> None:
    tools = registry()
    _, brain, _ = await choose_brain(tools)
    fast = await plan_once(brain, tools)
    tables = {}
    for name in ("direct", "batched"):
        path = tmp_path / f"{name}.db"
        clock = Clock(T0)
        store = AsyncStore(path) if name == "direct" else BatchedStore(path)
        async with store:
            runtime = Runtime(
                store,
                brain if name == "direct" else fast,
                tools,
                config=policy("cancel"),
                clock=clock,
                new_id=_counter(),
            )
            await populate(runtime, clock, 6, 2, step=TIMEOUT_STEP, batch=4)
        db = sqlite3.connect(path)
        tables[name] = {
            t: db.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in ("runs", "reviews", "events")
        }
        db.close()

    assert tables["batched"] == tables["direct"]
    assert len(tables["direct"]["runs"]) == 6


async def test_resume_compare_tiny_files_resumes_and_probes_due_reviews(tmp_path: Path) -> None:
    tools = registry()
    _, brain, _ = await choose_brain(tools)

    result = await resume_compare(tmp_path, brain, tools, 20, 200, 5, rounds=2)

    assert {n: len(t) for n, t in result.times.items()} == {20: 5, 200: 5}
    assert [(p.due, p.returned) for p in result.probes] == [(0, 0), (100, 100)]
    assert any("USING INDEX reviews_deadline" in line for line in result.plan)
    assert any("USING INDEX reviews_remind" in line for line in result.plan)
    db = sqlite3.connect(tmp_path / "paused-200.db")
    at = dict(db.execute("SELECT anchor, count(*) FROM reviews WHERE status = 'pending' GROUP BY anchor").fetchall())
    db.close()
    assert at == {"after_plan": 200 - 5 - 3, "before_risky_step": 5 + 3}  # 3 warm-up resumes


def test_main_tiny_run_prints_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--paused", "50", "--expired", "10", "--small", "20", "--big", "200", "--resumes", "5", "--rounds", "2"]

    assert main([*argv, "--dir", str(tmp_path)]) == 0

    out = capsys.readouterr().out
    assert "verified: exactly the 10 expired runs cancelled" in out
    assert "verified: exactly the 10 expired runs still waiting" in out
    assert "p50 ratio 200/20" in out


async def test_verify_other_run_touched_raises(tmp_path: Path) -> None:
    tools = registry()
    _, brain, _ = await choose_brain(tools)
    clock = Clock(T0)
    async with BatchedStore(tmp_path / "v.db") as store:
        runtime = Runtime(store, await plan_once(brain, tools), tools, config=policy("cancel"), clock=clock)
        cohort = await populate(runtime, clock, 6, 2, step=TIMEOUT_STEP, batch=6)
        before = await store.run(snapshot)
        touched = cohort.waiting[0]
        await store.run(lambda db: db.execute("UPDATE runs SET updated_at = 0 WHERE id = ?", [touched]))

        with pytest.raises(BenchFailure, match="changed 1 runs it should not have and missed 2 expired"):
            await store.run(lambda db: verify("cancel", cohort, before, db))
