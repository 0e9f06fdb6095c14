"""The scheduler benchmark: review deadlines at scale, and resume latency vs paused runs.

    python -m bench.scheduler                  # the figures for the issue (1–3 minutes)
    python -m bench.scheduler --paused 200 --expired 20 --big 2000 --resumes 20   # a quick look

1. Timeouts: ``--paused`` runs wait at ``after_plan`` with a deadline
   (``[timeouts.after_plan] after = "1h"``); ``--expired`` of them, spread through the file,
   were started a day before the rest. ``Runtime.tick(now, limit)`` is called until it
   returns 0, once with ``strategy = "cancel"`` and once with ``"pause"`` (a second file);
   the database must then show exactly the expired runs handled and every other row untouched.
2. Resume latency: p50/p99 of ``runtime.decide(run, Approve(), requester)`` with ``--small``
   vs ``--big`` paused runs in the file, measured in interleaved rounds; plus
   ``store.due_reviews(now)`` alone on the big file and its ``EXPLAIN QUERY PLAN``.

Real Runtime, AsyncStore (WAL, synchronous=FULL) and RunStore throughout. The cancel file is
built run by run through ``runtime.start`` (one transaction per transition, as in production).
The other files are built by ``runtime.start`` against :class:`BatchedStore`, which buffers the
runtime's own ``create``/``commit`` calls and replays them through ``RunStore`` in
transactions of ``--batch`` runs, with the product brain's plan for the task computed once
(:class:`PlanOnce`): the rows are the runtime's, only the transaction boundaries differ.
The measured resumes run on a freshly opened AsyncStore through the normal code path.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agent import usage
from agent.config import AnchorsRule, PolicyConfig, Strategy, TimeoutRule
from agent.models import (
    Answered,
    Approve,
    AuditEvent,
    LeaseClaim,
    Lesson,
    Outbound,
    PlannedStep,
    ProposedStep,
    Reading,
    Review,
    Rule,
    RuleSuspension,
    RunState,
    Step,
    TakeoverReading,
)
from agent.ports import Brain, ClassifyContext
from agent.runtime import Runtime
from agent.tools import ToolRegistry
from bench.loop import disk_bytes
from bench.results import BenchFailure, percentile
from bench.workload import BRAIN_LABELS, REQUESTER, TASK, BrainKind, choose_brain, registry
from storage.database import Database
from storage.facade import AsyncStore

AFTER = 3600.0  # the after_plan timeout
T0 = 1_700_000_000.0  # the clock when the expired runs were started
LATER = T0 + 86_400.0  # ... and the others (their deadline and reminder are still ahead at NOW)
NOW = T0 + AFTER + 60.0  # the `now` passed to tick
TIMEOUT_STEP = 1e-4  # clock step between runs of the timeout files (all expired deadlines stay < NOW)
RESUME_STEP = 1.0  # clock step between runs of the resume files (deadlines spread over n seconds)
WARMUP = 3  # resumes per file before the measured ones (not counted)
Build = Literal["runtime", "batched"]
Row = tuple[Any, ...]


def policy(strategy: Strategy) -> PolicyConfig:
    """Deadlines on the plan review; the deploy keeps its own gate, where a resume stops."""
    return PolicyConfig(
        timeouts={"after_plan": TimeoutRule(after=AFTER, strategy=strategy)}, anchors=AnchorsRule(merge_gate=False)
    )


class Clock:
    """A clock the benchmark sets: the runtime reads it for event times and deadlines."""

    def __init__(self, at: float) -> None:
        self.at = at

    def __call__(self) -> float:
        return self.at


class PlanOnce:
    """The product brain, with its plan for a task computed once and handed out as copies.

    Only for building files fast; ``LLMBrain(OfflineModel())`` is deterministic, so the
    rows are the same as with fresh plans (checked in :func:`plan_once`).
    """

    def __init__(self, inner: Brain, task: str, steps: list[ProposedStep], used: usage.Tally) -> None:
        self.inner, self.task, self.steps = inner, task, steps
        self.used = used  # what planning asked of the model: noted again for each copy (the audit rows match)

    async def plan(
        self,
        task: str,
        tools: ToolRegistry,
        *,
        feedback: list[str],
        rejected: list[PlannedStep],
        completed: list[Step],
        max_steps: int,
        ask_below: float = 0.0,
        lessons: Sequence[Lesson] = (),
    ) -> list[ProposedStep]:
        if task == self.task and not (feedback or rejected or completed):
            for _ in range(self.used.calls):
                usage.note_call(self.used.model)
            if self.used.reported:
                usage.note_tokens(self.used.prompt_tokens, self.used.completion_tokens)
            return [s.model_copy(deep=True) for s in self.steps]
        return await self.inner.plan(
            task,
            tools,
            feedback=feedback,
            rejected=rejected,
            completed=completed,
            max_steps=max_steps,
            ask_below=ask_below,
        )

    async def revise_step(
        self, task: str, step: Step, tools: ToolRegistry, *, feedback: str, suggested_fix: str | None
    ) -> dict[str, Any]:
        return await self.inner.revise_step(task, step, tools, feedback=feedback, suggested_fix=suggested_fix)

    async def summarize(self, task: str, steps: list[Step], notes: list[str]) -> str:
        return await self.inner.summarize(task, steps, notes)

    async def refine(self, task: str, output: str, feedback: str, steps: list[Step]) -> str:
        return await self.inner.refine(task, output, feedback, steps)

    async def classify(self, text: str, context: ClassifyContext) -> Reading:
        return await self.inner.classify(text, context)

    async def propose(self, instruction: str, task: str, steps: list[Step], tools: ToolRegistry) -> TakeoverReading:
        return await self.inner.propose(instruction, task, steps, tools)


async def plan_once(brain: Brain, tools: ToolRegistry) -> PlanOnce:
    with usage.counting() as used:
        first = await brain.plan(TASK, tools, feedback=[], rejected=[], completed=[], max_steps=10)
    second = await brain.plan(TASK, tools, feedback=[], rejected=[], completed=[], max_steps=10)
    if first != second:
        raise BenchFailure("the brain's plan for the task is not deterministic; PlanOnce would change the rows")
    return PlanOnce(brain, TASK, first, used)


class BatchedStore(AsyncStore):
    """Buffers the runtime's ``create``/``commit`` calls; :meth:`flush` replays them through
    ``RunStore`` in one transaction. Only for ``runtime.start``, which reads nothing back.

    The arguments are kept, not copied: the runtime never changes a state it has committed
    (``machine.transition`` works on a copy), and a copy could reorder the frozenset of
    anchors in the JSON (tests/bench/test_scheduler_smoke.py checks the rows byte for byte)."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(path)
        self.calls: list[Callable[[], object]] = []

    async def create(
        self,
        state: RunState,
        events: list[AuditEvent],
        opened: Review | None = None,
        outbox: Outbound | None = None,
        lease: LeaseClaim | None = None,
    ) -> int:
        self.calls.append(lambda: self.store.create(state, events, opened, outbox, lease))
        return 1

    async def commit(
        self,
        state: RunState,
        version: int,
        events: list[AuditEvent],
        *,
        opened: Review | None = None,
        answered: Answered | None = None,
        closed: str | None = None,
        reschedule: bool = False,
        rules: Sequence[Rule] = (),
        lessons: Sequence[Lesson] = (),
        suspended: Sequence[RuleSuspension] = (),
        outbox: Outbound | None = None,
        lease: LeaseClaim | None = None,
        durable: bool = True,
    ) -> int:
        self.calls.append(
            lambda: self.store.commit(
                state,
                version,
                events,
                opened=opened,
                answered=answered,
                closed=closed,
                reschedule=reschedule,
                rules=rules,
                lessons=lessons,
                suspended=suspended,
                outbox=outbox,
                lease=lease,
            )
        )
        return version + 1

    async def flush(self) -> None:
        calls, self.calls = self.calls, []

        def replay(db: Database) -> None:
            with db.atomic():
                for call in calls:
                    call()

        await self.run(replay)


@dataclass
class Cohort:
    expired: list[str] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)
    build_s: float = 0.0


def spread(n: int, k: int) -> set[int]:
    """``k`` of ``range(n)``, evenly spread."""
    return {i for i in range(n) if (i * k) // n != ((i + 1) * k) // n}


async def populate(runtime: Runtime, clock: Clock, n: int, expired: int, *, step: float, batch: int = 5000) -> Cohort:
    """Start ``n`` runs to their ``after_plan`` review. Expired ones start at T0, the rest at LATER
    (with ``expired=0`` every run starts at T0; the clock advances by ``step`` per run)."""
    store = runtime.store
    late = spread(n, expired)
    cohort = Cohort()
    began = time.perf_counter()
    for i in range(n):
        is_expired = i in late
        clock.at = (T0 if is_expired or not expired else LATER) + i * step
        state = await runtime.start(TASK, REQUESTER)
        if state.status != "awaiting_review" or state.pending is None or state.pending.anchor != "after_plan":
            raise BenchFailure(f"run {state.id} did not stop at after_plan: {state.status} ({state.error})")
        (cohort.expired if is_expired else cohort.waiting).append(state.id)
        if isinstance(store, BatchedStore) and (i + 1) % batch == 0:
            await store.flush()
    if isinstance(store, BatchedStore):
        await store.flush()
    cohort.build_s = time.perf_counter() - began
    return cohort


async def checkpoint(store: AsyncStore) -> None:
    await store.run(lambda db: db.execute("PRAGMA wal_checkpoint(TRUNCATE)"))


# --- 1. timeouts ------------------------------------------------------------------------


@dataclass
class TimeoutPass:
    strategy: Strategy
    build: Build
    cohort: Cohort
    handled: list[int]  # what each tick call returned
    tick_s: float
    bytes: int


def snapshot(db: Database) -> dict[str, tuple[Row, Row, int]]:
    """Per run: its runs row, its (only) reviews row, its number of audit events."""
    runs = {r[0]: r for r in db.execute("SELECT id, status, version, updated_at, state FROM runs")}
    reviews = {r[1]: r for r in db.execute("SELECT * FROM reviews")}
    events = {r[0]: int(r[1]) for r in db.execute("SELECT run_id, count(*) FROM events GROUP BY run_id")}
    return {run_id: (row, reviews[run_id], events[run_id]) for run_id, row in runs.items()}


def verify(strategy: Strategy, cohort: Cohort, before: dict[str, tuple[Row, Row, int]], db: Database) -> None:
    after = snapshot(db)
    if set(after) != set(before):
        raise BenchFailure("runs appeared or disappeared during tick")
    changed = {run_id for run_id in before if after[run_id] != before[run_id]}
    if changed != set(cohort.expired):
        extra, missed = len(changed - set(cohort.expired)), len(set(cohort.expired) - changed)
        raise BenchFailure(f"tick changed {extra} runs it should not have and missed {missed} expired ones")
    for run_id in cohort.expired:
        (_, status, version, _, state), review, events = after[run_id]
        old_version = before[run_id][0][2]
        # reviews columns: id, run_id, anchor, step, status, created_at, answered_at, answered_by, answer,
        # deadline, remind_at
        if strategy == "cancel":
            ok = status == "cancelled" and review[4] == "answered" and review[7] == "tandem (timeout)"
            ok = ok and review[8] == '{"kind":"timeout","action":"cancel"}'
        else:
            ok = status == "awaiting_review" and review[4] == "pending" and review[9] is None and review[10] is None
            ok = ok and RunState.model_validate_json(state).pending is not None and '"stale":true' in state
        if not ok or version != old_version + 1 or events <= before[run_id][2]:
            raise BenchFailure(f"run {run_id} after a {strategy} timeout: {status}, review {review}")


async def timeout_pass(
    path: Path,
    brain: Brain,
    tools: ToolRegistry,
    n: int,
    expired: int,
    *,
    strategy: Strategy,
    build: Build,
    limit: int = 500,
    batch: int = 5000,
) -> TimeoutPass:
    """Build ``n`` paused runs, ``expired`` of them past their deadline at NOW; tick them; verify."""
    clock = Clock(T0)
    store = AsyncStore(path) if build == "runtime" else BatchedStore(path)
    async with store:
        runtime = Runtime(store, brain, tools, config=policy(strategy), clock=clock)
        cohort = await populate(runtime, clock, n, expired, step=TIMEOUT_STEP, batch=batch)
    async with AsyncStore(path) as store:
        before = await store.run(snapshot)
        runtime = Runtime(store, brain, tools, config=policy(strategy), clock=Clock(NOW))
        handled: list[int] = []
        began = time.perf_counter()
        while not handled or handled[-1]:
            handled.append(await runtime.tick(NOW, limit=limit))
            if len(handled) > expired // max(limit, 1) + 3:
                raise BenchFailure(f"tick keeps finding due reviews: {handled}")
        tick_s = time.perf_counter() - began
        await store.run(lambda db: verify(strategy, cohort, before, db))
        if await runtime.tick(NOW, limit=limit) != 0:
            raise BenchFailure("a further tick found due reviews again")
        await checkpoint(store)
    return TimeoutPass(strategy, build, cohort, handled, tick_s, disk_bytes(path))


# --- 2. resume latency vs paused runs ------------------------------------------------------


@dataclass
class DueProbe:
    label: str
    due: int  # pending reviews whose deadline or reminder has come
    returned: int
    facade_s: list[float]  # await store.due_reviews(now), event loop → db thread → back
    sql_s: list[float]  # RunStore.due_reviews on the db thread
    scan_s: list[float]  # the same SQL with NOT INDEXED (what a missing index would cost)


@dataclass
class ResumeCompare:
    small: int
    big: int
    build_s: dict[int, float]
    bytes: dict[int, int]
    times: dict[int, list[float]]
    per_round: dict[int, list[float]]  # median of each measurement round
    plan: list[str]
    sql: str
    probes: list[DueProbe]


async def _due_probes(store: AsyncStore, n: int, repeats: int = 50) -> tuple[str, list[str], list[DueProbe]]:
    """Time due_reviews on a file whose deadlines are spread one per RESUME_STEP from T0 + AFTER."""
    lead = policy("cancel").timeouts["after_plan"].reminder_lead
    backlogs = sorted({min(k, n // 2) for k in (1_000, 10_000)} - {0})
    cases = [("nothing due", T0)] + [(f"{k:,} due", T0 + AFTER - lead + (k - 0.5) * RESUME_STEP) for k in backlogs]
    count = "SELECT count(*) FROM reviews WHERE status = 'pending' AND (deadline <= :now OR remind_at <= :now)"

    def probe(db: Database, label: str, now: float) -> tuple[str, list[str], DueProbe]:
        seen: list[str] = []
        db.conn.set_trace_callback(seen.append)
        try:
            rows = store.store.due_reviews(now, 500)
        finally:
            db.conn.set_trace_callback(None)
        sql = next(s for s in seen if "FROM reviews" in s)  # as SQLite ran it
        args = [now, now, 500] if "?" in sql else []
        plan = [str(r[-1]) for r in db.execute("EXPLAIN QUERY PLAN " + sql, args)]
        scan = sql.replace("FROM reviews", "FROM reviews NOT INDEXED")
        sql_s, scan_s = [], []
        for _ in range(repeats):
            t = time.perf_counter()
            store.store.due_reviews(now, 500)
            sql_s.append(time.perf_counter() - t)
        for _ in range(max(3, repeats // 10)):
            t = time.perf_counter()
            if sorted(db.execute(scan, args).fetchall()) != sorted(db.execute(sql, args).fetchall()):
                raise BenchFailure("due_reviews without its index returned other rows")
            scan_s.append(time.perf_counter() - t)
        due = int(db.execute(count, {"now": now}).fetchone()[0])
        return sql, plan, DueProbe(label, due, len(rows), [], sql_s, scan_s)

    first: tuple[str, list[str]] | None = None
    probes = []
    for label, now in cases:
        sql, plan, result = await store.run(functools.partial(probe, label=label, now=now))
        first = first or (sql, plan)
        for _ in range(repeats):
            t = time.perf_counter()
            await store.due_reviews(now)
            result.facade_s.append(time.perf_counter() - t)
        probes.append(result)
    assert first is not None
    return first[0], first[1], probes


async def resume_compare(
    workdir: Path,
    brain: Brain,
    tools: ToolRegistry,
    small: int,
    big: int,
    resumes: int,
    *,
    rounds: int = 10,
    batch: int = 5000,
    seed: int = 1,
) -> ResumeCompare:
    """Build a ``small`` and a ``big`` file of runs paused at after_plan, then resume a sample of each."""
    if min(small, big) < resumes + WARMUP:
        raise ValueError(f"each file needs at least resumes + {WARMUP} runs")
    fast = await plan_once(brain, tools)
    ids: dict[int, list[str]] = {}
    build_s: dict[int, float] = {}
    sizes: dict[int, int] = {}
    paths = {n: workdir / f"paused-{n}.db" for n in (small, big)}
    for n, path in paths.items():
        clock = Clock(T0)
        async with BatchedStore(path) as building:
            runtime = Runtime(building, fast, tools, config=policy("cancel"), clock=clock)
            cohort = await populate(runtime, clock, n, 0, step=RESUME_STEP, batch=batch)
            await checkpoint(building)
        ids[n], build_s[n], sizes[n] = cohort.waiting, cohort.build_s, disk_bytes(path)

    rng = random.Random(seed)
    sample = {n: rng.sample(ids[n], resumes + WARMUP) for n in paths}
    times: dict[int, list[float]] = {n: [] for n in paths}
    per_round: dict[int, list[float]] = {n: [] for n in paths}
    async with AsyncStore(paths[small]) as small_store, AsyncStore(paths[big]) as big_store:
        stores = {small: small_store, big: big_store}
        runtimes = {n: Runtime(s, brain, tools, config=policy("cancel")) for n, s in stores.items()}
        sql, plan, probes = await _due_probes(big_store, big)

        async def resume(n: int, run_id: str) -> float:
            t = time.perf_counter()
            state = await runtimes[n].decide(run_id, Approve(), REQUESTER)
            took = time.perf_counter() - t
            if state.pending is None or state.pending.anchor != "before_risky_step":
                raise BenchFailure(f"run {run_id} did not stop at before_risky_step: {state.status} ({state.error})")
            return took

        for n in paths:
            for run_id in sample[n][:WARMUP]:
                await resume(n, run_id)
        for r in range(rounds):
            for n in (small, big) if r % 2 == 0 else (big, small):
                took = [await resume(n, run_id) for run_id in sample[n][WARMUP:][r::rounds]]
                times[n] += took
                per_round[n].append(statistics.median(took) if took else float("nan"))
    return ResumeCompare(small, big, build_s, sizes, times, per_round, plan, sql, probes)


# --- printing and the CLI ------------------------------------------------------------------


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


def print_timeouts(p: TimeoutPass) -> None:
    n, k = len(p.cohort.expired) + len(p.cohort.waiting), len(p.cohort.expired)
    how = (
        "runtime.start, one transaction per transition"
        if p.build == "runtime"
        else "runtime.start → BatchedStore (RunStore replay, big transactions; plan computed once)"
    )
    print(f"\n  strategy={p.strategy}: {n:,} runs paused at after_plan, {k:,} past their deadline")
    print(f"    built by {how}: {p.cohort.build_s:.1f} s ({_ms(p.cohort.build_s / n)} per run)")
    print(f"    tick calls (handled each): {p.handled} = {len(p.handled)} calls")
    print(f"    tick total {p.tick_s:.3f} s; per handled review {_ms(p.tick_s / max(k, 1))}")
    done = "cancelled (review answered by 'tandem (timeout)')" if p.strategy == "cancel" else "still waiting, stale"
    print(f"    verified: exactly the {k:,} expired runs {done}; the other {n - k:,} rows byte-identical")
    print(f"    file: {p.bytes:,} B")


def print_resumes(c: ResumeCompare) -> None:
    for n in (c.small, c.big):
        print(
            f"\n  {n:,} paused runs: built in {c.build_s[n]:.1f} s ({_ms(c.build_s[n] / n)} per run, batched);"
            f" file {c.bytes[n]:,} B ({c.bytes[n] / n:,.0f} B per run)"
        )
    print(f"\n  resume = runtime.decide(run, Approve(), {REQUESTER!r}): after_plan → 2 steps run → before_risky_step")
    print(f"  {len(c.times[c.small])} resumes per file in interleaved rounds ({WARMUP} warm-up each, not counted)")
    head = f"    {'paused runs':>12} {'p50':>12} {'p99':>12} {'mean':>12}"
    print(head)
    for n in (c.small, c.big):
        t = c.times[n]
        print(f"    {n:>12,} {_ms(percentile(t, 50)):>12} {_ms(percentile(t, 99)):>12} {_ms(statistics.mean(t)):>12}")
    for q in (50, 99):
        ratio = percentile(c.times[c.big], q) / percentile(c.times[c.small], q)
        print(f"    p{q} ratio {c.big:,}/{c.small:,}: {ratio:.2f}x")
    for n in (c.small, c.big):
        print(f"    median per round, {n:,}: " + " ".join(f"{m * 1000:.2f}" for m in c.per_round[n]) + " ms")
    print(f"\n  store.due_reviews(now) on the {c.big:,}-run file; its SQL:\n    {c.sql}")
    print("  EXPLAIN QUERY PLAN:")
    for line in c.plan:
        print(f"    {line}")
    for p in c.probes:
        print(
            f"    {p.label} ({p.due:,} due, {p.returned} returned): await store.due_reviews p50"
            f" {_ms(statistics.median(p.facade_s))}; the SQL alone p50 {_ms(statistics.median(p.sql_s))};"
            f" NOT INDEXED p50 {_ms(statistics.median(p.scan_s))}"
        )


async def run_all(args: argparse.Namespace, workdir: Path) -> None:
    tools = registry()
    kind, brain, note = await choose_brain(tools)
    if kind != "llm":
        print(f"  !! {note}")
    label: BrainKind = kind
    print(f"Tandem scheduler benchmark — brain: {BRAIN_LABELS[label]}")
    print(f"  policy: [timeouts.after_plan] after = {AFTER:g} s (reminder 20% before); tick limit {args.limit}")
    print(f"  SQLite {sqlite3.sqlite_version}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} (1 min)")
    fast = await plan_once(brain, tools)
    passes: list[tuple[Strategy, Build, Brain]] = [("cancel", "runtime", brain), ("pause", "batched", fast)]
    for strategy, build, using in passes:
        path = workdir / f"{strategy}.db"
        result = await timeout_pass(
            path,
            using,
            tools,
            args.paused,
            args.expired,
            strategy=strategy,
            build=build,
            limit=args.limit,
            batch=args.batch,
        )
        print_timeouts(result)
    compare = await resume_compare(
        workdir, brain, tools, args.small, args.big, args.resumes, rounds=args.rounds, batch=args.batch
    )
    print_resumes(compare)
    print(f"\n  load average after: {os.getloadavg()[0]:.2f} (1 min; other work on the machine skews timings)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.scheduler", description=__doc__.split("\n")[0])
    parser.add_argument("--paused", type=int, default=10_000, help="paused runs in the timeout files")
    parser.add_argument("--expired", type=int, default=1_000, help="of which past their deadline")
    parser.add_argument("--limit", type=int, default=500, help="tick's limit")
    parser.add_argument("--small", type=int, default=1_000, help="paused runs in the small resume file")
    parser.add_argument("--big", type=int, default=100_000, help="paused runs in the big resume file")
    parser.add_argument("--resumes", type=int, default=300, help="measured resumes per file")
    parser.add_argument("--rounds", type=int, default=10, help="interleaved measurement rounds")
    parser.add_argument("--batch", type=int, default=5_000, help="runs per transaction when building fast")
    parser.add_argument("--dir", type=Path, help="where the databases go (default: a new temp dir, removed)")
    args = parser.parse_args(argv)
    if not 0 <= args.expired <= args.paused or args.limit < 1 or args.batch < 1:
        parser.error("need 0 <= --expired <= --paused, --limit >= 1, --batch >= 1")
    if min(args.small, args.big) < args.resumes + WARMUP:
        parser.error(f"--small and --big need at least --resumes + {WARMUP} runs")
    workdir = args.dir or Path(tempfile.mkdtemp(prefix="tandem-sched-"))
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        asyncio.run(run_all(args, workdir))
    except BenchFailure as exc:
        print(f"FAILED: {exc}")
        return 1
    finally:
        if args.dir is None:
            for f in sorted(workdir.iterdir()):
                f.unlink()
            workdir.rmdir()
    return 0


if __name__ == "__main__":
    sys.exit(main())
