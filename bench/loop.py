"""The loop benchmark: start N runs to their first anchor, then approve every anchor until done.

    python -m bench.loop --runs 2000        # the figures for the issue
    python -m bench.loop --runs 50          # a quick look
    python -m bench.loop --runs 500 --profile

Real Runtime, real AsyncStore on a SQLite file (WAL, synchronous=FULL) in a temp dir,
real ``@tool`` tools (:mod:`bench.tools`), and the product's brain when it plans the
fixed workload (see :mod:`bench.workload`). It prints figures; it asserts only that
the workload ran as specified (3 reviews per run, every run done).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import pstats
import resource
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Literal

from agent.models import (
    Approve,
    AuditEvent,
    RunState,
)
from agent.runtime import Runtime
from bench.report import figures, report
from bench.results import BenchFailure, ChildRun, LoopResult, Paused, TableBytes
from bench.spawn import child_env, cold_start, import_times, python_baseline
from bench.workload import EXPECTED_ANCHORS, POLICY, REQUESTER, REVIEWER, TASK, choose_brain, make_brain, registry
from storage.database import Database
from storage.facade import AsyncStore

__all__ = ["BenchFailure", "LoopResult", "main", "run_loop"]


# --- the loop -------------------------------------------------------------------


def disk_bytes(path: Path) -> int:
    """The database file plus its WAL (the -shm index is shared memory, not data)."""
    wal = path.with_name(path.name + "-wal")
    return path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


async def _checkpoint(store: AsyncStore) -> None:
    def run(db: Database) -> None:
        busy, _, _ = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if busy:
            raise BenchFailure("wal_checkpoint(TRUNCATE) was blocked; the byte count would include the WAL")

    await store.run(run)


def _tables(db: Database) -> list[TableBytes]:
    try:
        rows = db.execute(
            "SELECT name, count(*), sum(pgsize), sum(payload) FROM dbstat GROUP BY name ORDER BY 3 DESC"
        ).fetchall()
    except sqlite3.OperationalError:  # SQLite built without SQLITE_ENABLE_DBSTAT_VTAB
        return []
    return [TableBytes(name, pages, size, payload) for name, pages, size, payload in rows]


def _row_facts(db: Database) -> dict[str, float]:
    one = db.execute
    return {
        "runs.state avg bytes": one("SELECT avg(length(state)) FROM runs").fetchone()[0] or 0.0,
        "events per run": one("SELECT count(*) * 1.0 / (SELECT count(*) FROM runs) FROM events").fetchone()[0] or 0.0,
        "events.payload avg bytes": one("SELECT avg(length(coalesce(payload, ''))) FROM events").fetchone()[0] or 0.0,
        "reviews per run": one("SELECT count(*) * 1.0 / (SELECT count(*) FROM runs) FROM reviews").fetchone()[0] or 0.0,
    }


class CountingStore(AsyncStore):
    """The product's SQLite store, counting run commits that wait for the disk and those that do not."""

    def __init__(self, path: Path, *, inline: bool = True) -> None:
        super().__init__(path, inline=inline)
        self.durable = 0
        self.lazy = 0

    async def commit(
        self, state: RunState, version: int, events: list[AuditEvent], *, durable: bool = True, **writes: Any
    ) -> int:
        version = await super().commit(state, version, events, durable=durable, **writes)
        if durable:
            self.durable += 1
        else:
            self.lazy += 1
        return version


async def _empty_db_bytes(path: Path) -> int:
    async with AsyncStore(path) as store:
        await _checkpoint(store)
        return disk_bytes(path)


def _every_commit_at(db: Database, level: str) -> None:
    """The diagnostic's level for every commit: the connection's own, which a commit that need not wait for
    the disk puts back after it (:func:`storage.db.unsynced`)."""
    db.execute(f"PRAGMA synchronous={level}")
    db.synchronous = int(db.execute("PRAGMA synchronous").fetchone()[0])


async def run_loop(
    n: int,
    workdir: Path,
    *,
    brain: Literal["auto", "llm", "fixed"] = "auto",
    profile: bool = False,
    extra_paused: int = 0,
    synchronous: Literal["FULL", "NORMAL", "OFF"] | None = None,
    every_commit_durable: bool = False,
    db_thread: bool = False,
) -> LoopResult:
    """Run the workload on a fresh database in ``workdir``; raise BenchFailure if it misbehaves.

    ``extra_paused`` runs are started afterwards and left at their first anchor (for the
    cold-start measurement on a populated database). ``synchronous`` overrides what
    storage/db.py sets — a diagnostic (how much of a resume is fsync), never the figure.
    ``every_commit_durable``: every transition waits for the disk (as before commits were shared).
    ``db_thread``: SQLite is called on a database thread of its own (the CLI's store) instead of on
    the loop the runtime works on (how ``tandem serve`` opens it on its runtime loop).
    """
    if n < 1:
        raise ValueError("n must be at least 1")
    tools = registry()
    if brain == "auto":
        kind, the_brain, note = await choose_brain(tools)
    else:
        kind, the_brain, note = brain, make_brain(brain), "chosen with --brain"
    empty_bytes = await _empty_db_bytes(workdir / "empty.db")

    db_path = workdir / "loop.db"
    store = CountingStore(db_path, inline=not db_thread)
    async with store:
        if synchronous is not None:
            await store.run(lambda db: _every_commit_at(db, synchronous))
        journal_mode, sync_level, page_size = await store.run(
            lambda db: (
                str(db.execute("PRAGMA journal_mode").fetchone()[0]),
                int(db.execute("PRAGMA synchronous").fetchone()[0]),
                int(db.execute("PRAGMA page_size").fetchone()[0]),
            )
        )
        runtime = Runtime(store, the_brain, tools, config=POLICY)
        runtime.lazy_commits = not every_commit_durable

        # Phase 1: start N runs; each must stop at its first anchor.
        pending: list[RunState] = []
        began = time.perf_counter()
        for _ in range(n):
            state = await runtime.start(TASK, REQUESTER)
            pending.append(state)
        start_s = time.perf_counter() - began
        for state in pending:
            expect_run(state, 0)

        # Every run paused: what is on disk?
        await _checkpoint(store)
        paused_bytes = disk_bytes(db_path)
        paused_freelist = await store.run(lambda db: int(db.execute("PRAGMA freelist_count").fetchone()[0]))
        paused_tables = await store.run(_tables)
        paused_rows = await store.run(_row_facts)

        # Phase 2: approve every anchor, round by round, timing each resume.
        main_prof, db_prof = cProfile.Profile(), cProfile.Profile()
        if profile:
            await store.run(lambda _db: db_prof.enable())
            main_prof.enable()
        resumes: list[float] = []
        store.durable = store.lazy = 0
        by_anchor: dict[str, list[float]] = {a: [] for a in EXPECTED_ANCHORS}
        began = time.perf_counter()
        for number, anchor in enumerate(EXPECTED_ANCHORS, start=1):
            for i, state in enumerate(pending):
                review = state.pending
                assert review is not None
                t0 = time.perf_counter()
                state = await runtime.decide(state.id, Approve(), REVIEWER, review_id=review.id)
                took = time.perf_counter() - t0
                resumes.append(took)
                by_anchor[anchor].append(took)
                pending[i] = state
                expect_run(state, number)
        resume_s = time.perf_counter() - began
        durable, lazy = store.durable, store.lazy
        if profile:
            main_prof.disable()
            await store.run(lambda _db: db_prof.disable())

        reviews_per_run, runs_done = await store.run(lambda db: _verify(db, n))
        await _checkpoint(store)
        done_bytes = disk_bytes(db_path)
        done_tables = await store.run(_tables)

        extra = []
        for _ in range(extra_paused):
            state = await runtime.start(TASK, REQUESTER)
            expect_run(state, 0)
            assert state.pending is not None
            extra.append(Paused(state.id, state.pending.id))

    return LoopResult(
        n=n,
        brain=kind,
        sync_override=synchronous is not None,
        brain_note=note,
        db_path=db_path,
        journal_mode=journal_mode,
        synchronous=sync_level,
        page_size=page_size,
        start_s=start_s,
        resume_s=resume_s,
        resumes=resumes,
        resumes_by_anchor=by_anchor,
        empty_bytes=empty_bytes,
        paused_bytes=paused_bytes,
        paused_freelist=paused_freelist,
        paused_tables=paused_tables,
        paused_rows=paused_rows,
        done_bytes=done_bytes,
        done_tables=done_tables,
        reviews_per_run=reviews_per_run,
        runs_done=runs_done,
        peak_rss_kb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        extra_paused=extra,
        profile=_profile_text(main_prof, db_prof) if profile else "",
        durable_commits=durable,
        lazy_commits=lazy,
        every_commit_durable=every_commit_durable,
        db_thread=db_thread,
    )


def expect_run(state: RunState, resumed: int) -> None:
    """After ``resumed`` approvals a run waits at the next expected anchor, or is done after the last."""
    if resumed < len(EXPECTED_ANCHORS):
        anchor = state.pending.anchor if state.pending else None
        if state.status != "awaiting_review" or anchor != EXPECTED_ANCHORS[resumed]:
            raise BenchFailure(
                f"run {state.id}: after {resumed} approvals expected to wait at {EXPECTED_ANCHORS[resumed]},"
                f" but it is {state.status} at {anchor} (error: {state.error})"
            )
    elif state.status != "done":
        raise BenchFailure(f"run {state.id}: after {resumed} approvals expected done, but it is {state.status}")


def _verify(db: Database, n: int) -> tuple[dict[int, int], int]:
    """From the database: every run has exactly the 3 expected reviews, all answered, and is done."""
    rows = db.execute(
        "SELECT run_id, group_concat(anchor || ':' || status, ',') FROM"
        " (SELECT run_id, anchor, status FROM reviews ORDER BY rowid) GROUP BY run_id"
    ).fetchall()
    expected = ",".join(f"{a}:answered" for a in EXPECTED_ANCHORS)
    counts: dict[int, int] = {}
    for run_id, reviews in rows:
        counts[len(reviews.split(","))] = counts.get(len(reviews.split(",")), 0) + 1
        if reviews != expected:
            raise BenchFailure(f"run {run_id} had reviews {reviews}, expected {expected}")
    if len(rows) != n:
        raise BenchFailure(f"{len(rows)} runs had reviews, expected {n}")
    done = int(db.execute("SELECT count(*) FROM runs WHERE status = 'done'").fetchone()[0])
    if done != n:
        raise BenchFailure(f"{done} of {n} runs are done")
    return counts, done


def _profile_text(main: cProfile.Profile, db: cProfile.Profile, top: int = 25) -> str:
    out = io.StringIO()
    for title, prof in (("event-loop thread", main), ("database thread (tandem-db)", db)):
        for order in ("tottime", "cumulative"):
            out.write(f"\n--- {title}, top {top} by {order} ---\n")
            stats = pstats.Stats(prof, stream=out)
            stats.strip_dirs().sort_stats(order).print_stats(top)
    return out.getvalue()


# --- entry point --------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.loop", description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=2000, help="N runs (default 2000)")
    parser.add_argument("--brain", choices=("auto", "llm", "fixed"), default="auto")
    parser.add_argument("--cold-repeats", type=int, default=7, help="fresh processes timed for cold start")
    parser.add_argument("--profile", action="store_true", help="cProfile the resume phase")
    parser.add_argument(
        "--synchronous",
        choices=("FULL", "NORMAL", "OFF"),
        help="DIAGNOSTIC: override storage/db.py's synchronous=FULL to see how much of a resume is fsync",
    )
    parser.add_argument(
        "--every-commit-durable",
        action="store_true",
        help="every transition waits for the disk (no shared commit): what one durable commit per resume buys",
    )
    parser.add_argument(
        "--db-thread",
        action="store_true",
        help="call SQLite on a database thread (the CLI's store) instead of on the runtime's loop (tandem serve's)",
    )
    parser.add_argument("--dir", type=Path, help="where the database goes (default: a new temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the temp dir")
    parser.add_argument("--json-out", type=Path, help="also write the headline figures to this file, as JSON")
    args = parser.parse_args(argv)

    workdir = args.dir or Path(tempfile.mkdtemp(prefix="tandem-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()[0]
    try:
        repeats = max(0, args.cold_repeats)
        # Cold start needs paused runs: 1 warm-up + repeats per variant, plus one for -X importtime.
        extra = 2 * (repeats + 1) + 1 if repeats else 0
        result = asyncio.run(
            run_loop(
                args.runs,
                workdir,
                brain=args.brain,
                profile=args.profile,
                extra_paused=extra,
                synchronous=args.synchronous,
                every_commit_durable=args.every_commit_durable,
                db_thread=args.db_thread,
            )
        )
        baseline = python_baseline(repeats, child_env(workdir / "pycache")) if repeats else []
        cold: list[ChildRun] = []
        wiring: list[ChildRun] = []
        imports = ""
        if repeats:
            paused = result.extra_paused
            cold = cold_start(result.db_path, paused[: repeats + 1], result.brain, "runtime")
            try:
                wiring = cold_start(result.db_path, paused[repeats + 1 : 2 * repeats + 2], result.brain, "wiring")
            except BenchFailure as exc:  # informational only: cli.wiring is changed by others
                print(f"  (cold start via cli.wiring failed, left out: {str(exc)[-300:]})")
            imports = import_times(result.db_path, paused[-1], result.brain)
        ok = report(result, baseline, cold, wiring, imports, load_before)
        if args.json_out:
            args.json_out.write_text(json.dumps(figures(result) | {"workload_ok": ok}, indent=2) + "\n")
    finally:
        if not args.keep and args.dir is None:
            shutil.rmtree(workdir)
        else:
            print(f"\n  kept {workdir}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
