"""SQLite beside PostgreSQL: the loop's resume and one bare commit, on each backend.

``python -m bench.backends --runs 300`` starts a throwaway PostgreSQL server (Debian's
``postgresql`` package, as the tests do, but durable: fsync and synchronous_commit on)
and, on each backend, runs the loop benchmark's workload (:mod:`bench.workload`: N runs,
three approvals each) through the real Runtime, timing every resume; then times a bare
``store.commit`` of a small transition (the store alone, no runtime). SQLite is the
product's file as :mod:`storage.db` opens it (WAL, synchronous=FULL). Both are on this
machine: the PostgreSQL figure is a local unix-socket round trip, not a network one.
Prints figures; asserts no speed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from agent.models import Approve, RunState
from agent.ports import Store
from agent.runtime import Runtime
from bench.results import BenchFailure, percentile
from bench.workload import EXPECTED_ANCHORS, POLICY, REQUESTER, REVIEWER, TASK, make_brain, registry
from storage.facade import AsyncStore
from storage.postgres.store import PgStore
from tests.pgserver import PgServer


@dataclass
class Figures:
    backend: str
    resumes: list[float]
    commits: list[float]
    start_s: float

    def line(self) -> str:
        r, c = self.resumes, self.commits
        return (
            f"  {self.backend:<10} resume p50 {percentile(r, 50) * 1e3:6.2f} ms  p99 {percentile(r, 99) * 1e3:6.2f} ms"
            f"  ({len(r) / sum(r):6.0f}/s)   commit p50 {percentile(c, 50) * 1e3:6.2f} ms"
            f"  p99 {percentile(c, 99) * 1e3:6.2f} ms   starts {self.start_s:5.2f} s"
        )


async def measure(backend: str, store: Store, runs: int, commits: int) -> Figures:
    """The workload on ``store``: raise BenchFailure when a run does not pause where expected."""
    runtime = Runtime(store, make_brain("fixed"), registry(), config=POLICY)
    began = time.perf_counter()
    pending = [await runtime.start(TASK, REQUESTER) for _ in range(runs)]
    start_s = time.perf_counter() - began
    resumes: list[float] = []
    for number, anchor in enumerate(EXPECTED_ANCHORS, start=1):
        for i, state in enumerate(pending):
            if state.pending is None or state.pending.anchor != anchor:
                raise BenchFailure(f"{backend}: run {state.id} is not at {anchor} before approval {number}")
            t0 = time.perf_counter()
            pending[i] = await runtime.decide(state.id, Approve(), REVIEWER, review_id=state.pending.id)
            resumes.append(time.perf_counter() - t0)
    if any(s.status != "done" for s in pending):
        raise BenchFailure(f"{backend}: not every run is done after three approvals")

    state = RunState(id="commit-bench", task="t", requester=REQUESTER, created_at=0.0, updated_at=0.0)
    version = await store.create(state, [])
    timings = []
    for i in range(commits):
        moved = state.model_copy(update={"updated_at": float(i)})
        t0 = time.perf_counter()
        version = await store.commit(moved, version, [])
        timings.append(time.perf_counter() - t0)
    return Figures(backend, resumes, timings, start_s)


@asynccontextmanager
async def backends(workdir: Path, *, durable: bool = True) -> AsyncIterator[list[tuple[str, Store]]]:
    server = PgServer(durable=durable)  # in a temp dir of its own, which its user can reach
    server.start()
    try:
        async with AsyncStore(workdir / "bench.db") as sqlite, PgStore(server.database()) as postgres:
            yield [("sqlite", sqlite), ("postgres", postgres)]
    finally:
        server.stop()


async def run(runs: int, commits: int, workdir: Path, *, durable: bool = True) -> list[Figures]:
    async with backends(workdir, durable=durable) as stores:
        return [await measure(name, store, runs, commits) for name, store in stores]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.backends", description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=300, help="N runs, three resumes each (default 300)")
    parser.add_argument("--commits", type=int, default=1000, help="bare commits timed (default 1000)")
    parser.add_argument(
        "--postgres-fsync-off",
        action="store_true",
        help="DIAGNOSTIC: PostgreSQL without fsync, to see how much of its figure is the disk (never the figure)",
    )
    args = parser.parse_args(argv)
    if args.runs < 1 or args.commits < 1:
        parser.error("--runs and --commits must be at least 1")
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="tandem-bench-") as tmp:
        figures = asyncio.run(run(args.runs, args.commits, Path(tmp), durable=not args.postgres_fsync_off))
    print(f"bench.backends: {args.runs} runs x 3 resumes, {args.commits} bare commits; load average {load:.2f}")
    if args.postgres_fsync_off:
        print("  DIAGNOSTIC: PostgreSQL runs with fsync=off and synchronous_commit=off; not a durable figure")
    for f in figures:
        print(f.line())
    sqlite, postgres = figures
    ratio = percentile(postgres.resumes, 50) / percentile(sqlite.resumes, 50)
    print(f"  resume p50, postgres / sqlite: {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
