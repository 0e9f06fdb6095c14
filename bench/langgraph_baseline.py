"""LangGraph baseline for bench.loop's workload, run in its own virtualenv.

    python3 -m venv .venv-langgraph && .venv-langgraph/bin/pip install 'langgraph>=1.2,<1.3' langgraph-checkpoint-sqlite
    .venv-langgraph/bin/python -m bench.langgraph_baseline --runs 2000          # from the repo root
    .venv-langgraph/bin/python -m bench.langgraph_baseline --runs 50 --json     # + one JSON line at the end

Standalone: it imports nothing from Tandem (agent, storage, bench.*), so it runs in a
virtualenv that has LangGraph and not Tandem, and Tandem never depends on LangGraph. The
workload is bench.loop's, rebuilt with LangGraph: a StateGraph plan -> step1 (read) ->
step2 (read) -> step3 (risky deploy) -> result with three ``interrupt()`` pauses (after the
plan, before the risky step, before the result), every pause resumed with
``Command(resume=...)`` on its thread, checkpointed by LangGraph's SQLite saver on a file
opened with WAL and ``PRAGMA synchronous=FULL`` (set explicitly, read back, printed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import operator
import os
import platform
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Annotated, Any, Literal, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

__all__ = ["BenchFailure", "Result", "Saver", "build_graph", "main", "run_loop"]

SaverKind = Literal["async", "sync"]
Durability = Literal["async", "sync", "exit"]

# --- the workload (bench/workload.py and bench/tools.py, restated without importing them) ---

TASK = "check the status of api, then read the logs of api, then deploy api 2.4.2"
PLAN: tuple[dict[str, Any], ...] = (
    {"tool": "check_status", "params": {"service": "api"}, "risk": "read", "reason": "fixed plan"},
    {"tool": "read_logs", "params": {"service": "api", "limit": 20}, "risk": "read", "reason": "fixed plan"},
    {"tool": "deploy", "params": {"service": "api", "version": "2.4.2"}, "risk": "deploy", "reason": "fixed plan"},
)
EXPECTED_ANCHORS: tuple[str, ...] = ("after_plan", "before_risky_step", "before_result")
REQUESTER = "bench"
REVIEWER = REQUESTER
APPROVE: dict[str, str] = {"decision": "approve", "by": REVIEWER}

# LangGraph 1.2 + SqliteSaver as quoted in the issue (bench/report.py), shown for reference only.
ISSUE_RESUME_MS = 3.0
ISSUE_BYTES = 7_600
ISSUE_COLD_S = 0.5

REPO_ROOT = Path(__file__).resolve().parent.parent
PACKAGES = (
    "langgraph",
    "langgraph-checkpoint",
    "langgraph-checkpoint-sqlite",
    "langchain-core",
    "aiosqlite",
    "ormsgpack",
)


def check_status(service: str) -> str:
    return f"{service}: running, 3 replicas, 0.1% errors"


def read_logs(service: str, limit: int = 20) -> str:
    return f"{service}: last {limit} lines, no errors"


def deploy(service: str, version: str) -> str:
    return f"{service} is now at {version}"


TOOLS: dict[str, Callable[..., str]] = {"check_status": check_status, "read_logs": read_logs, "deploy": deploy}


class BenchFailure(RuntimeError):
    """The workload did not run as specified: the figures would mean nothing."""


# --- the graph ----------------------------------------------------------------------


class RunState(TypedDict, total=False):
    task: str
    requester: str
    plan: list[dict[str, Any]]
    results: Annotated[list[str], operator.add]
    approvals: Annotated[list[dict[str, str]], operator.add]  # who approved which pause (the audit trail)
    output: str


def _ask(anchor: str, **shown: Any) -> dict[str, str]:
    """One human pause. LangGraph re-runs the node from its start on resume, so each pause is
    the first thing its node does (nothing before it runs twice), except before_result, whose
    node first composes the output the human reviews (a string join, run again on resume)."""
    answer = interrupt({"anchor": anchor, **shown})
    if not isinstance(answer, dict) or answer.get("decision") != "approve":
        raise BenchFailure(f"{anchor}: expected an approval, got {answer!r}")
    return {"anchor": anchor, "by": str(answer["by"])}


def _call(step: dict[str, Any]) -> str:
    return TOOLS[step["tool"]](**step["params"])


def plan(state: RunState) -> RunState:
    if state["task"] != TASK:
        raise BenchFailure(f"the baseline only plans the benchmark task, not {state['task']!r}")
    return {"plan": [dict(step) for step in PLAN]}


def step1(state: RunState) -> RunState:
    approval = _ask("after_plan", plan=state["plan"])
    return {"results": [_call(state["plan"][0])], "approvals": [approval]}


def step2(state: RunState) -> RunState:
    return {"results": [_call(state["plan"][1])]}


def step3(state: RunState) -> RunState:
    step = state["plan"][2]
    approval = _ask("before_risky_step", step=step)
    return {"results": [_call(step)], "approvals": [approval]}


def result(state: RunState) -> RunState:
    output = "\n".join(
        f"{i}. {s['tool']}: {r}" for i, (s, r) in enumerate(zip(state["plan"], state["results"], strict=True), 1)
    )
    approval = _ask("before_result", output=output)
    return {"output": output, "approvals": [approval]}


NODES: tuple[tuple[str, Callable[[RunState], RunState]], ...] = (
    ("plan", plan),
    ("step1", step1),
    ("step2", step2),
    ("step3", step3),
    ("result", result),
)


def _as_async(fn: Callable[[RunState], RunState]) -> Callable[[RunState], Awaitable[RunState]]:
    # An async bot writes async nodes; a sync node under ainvoke would hop to a thread pool.
    async def node(state: RunState) -> RunState:
        return fn(state)

    node.__name__ = fn.__name__
    return node


def build_graph(saver: Any, kind: SaverKind) -> Any:
    builder = StateGraph(RunState)
    for name, fn in NODES:
        builder.add_node(name, _as_async(fn) if kind == "async" else fn)
    builder.add_edge(START, "plan")
    for (a, _), (b, _) in zip(NODES, NODES[1:], strict=False):
        builder.add_edge(a, b)
    builder.add_edge("result", END)
    return builder.compile(checkpointer=saver)


# --- the saver and its connection ------------------------------------------------------------

_PRAGMAS = ("PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL")
# --pragmas default: the file as LangGraph's saver opens it on its own (its setup() turns on WAL; synchronous is
# SQLite's compiled-in default, read back and printed).
PRAGMAS: dict[str, tuple[str, ...]] = {"full": _PRAGMAS, "default": ()}


class Saver:
    """The checkpointer and its connection, behind one small async face (sync saver: direct calls)."""

    def __init__(self, kind: SaverKind, path: Path, pragmas: str = "full") -> None:
        self.kind = kind
        self.path = path
        self.pragmas = PRAGMAS[pragmas]
        self.conn: Any = None
        self.saver: Any = None
        self.graph: Any = None

    async def open(self) -> Saver:
        if self.kind == "async":
            import aiosqlite
            from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

            # as AsyncSqliteSaver.from_conn_string does, plus the PRAGMAs
            self.conn = await aiosqlite.connect(str(self.path))
            for pragma in self.pragmas:
                await self.conn.execute(pragma)
            self.saver = AsyncSqliteSaver(self.conn)
            await self.saver.setup()
        else:
            from langgraph.checkpoint.sqlite import SqliteSaver

            # as SqliteSaver.from_conn_string does, plus the PRAGMAs
            self.conn = sqlite3.connect(str(self.path), check_same_thread=False)
            for pragma in self.pragmas:
                self.conn.execute(pragma)
            self.saver = SqliteSaver(self.conn)
            self.saver.setup()
        self.graph = build_graph(self.saver, self.kind)
        return self

    async def close(self) -> None:
        if self.conn is not None:
            if self.kind == "async":
                await self.conn.close()
            else:
                self.conn.close()
            self.conn = None

    async def invoke(self, value: Any, config: dict[str, Any], durability: Durability) -> dict[str, Any]:
        if self.kind == "async":
            return await self.graph.ainvoke(value, config, durability=durability)
        return self.graph.invoke(value, config, durability=durability)

    async def get_state(self, config: dict[str, Any]) -> Any:
        if self.kind == "async":
            return await self.graph.aget_state(config)
        return self.graph.get_state(config)

    async def query(self, sql: str) -> list[tuple[Any, ...]]:
        """On the saver's own connection (PRAGMAs are per connection)."""
        if self.kind == "async":
            async with self.conn.execute(sql) as cur:
                return list(await cur.fetchall())
        return self.conn.execute(sql).fetchall()


def config_for(thread_id: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread_id}}


def new_thread_id() -> str:
    return uuid.uuid4().hex[:12]  # as long as a Tandem run id (agent/runtime.py)


def anchor_of(out: dict[str, Any]) -> str | None:
    pending = out.get("__interrupt__") or []
    if len(pending) != 1:
        return None if not pending else f"{len(pending)} interrupts"
    return pending[0].value.get("anchor")


# --- results -------------------------------------------------------------------------------------


@dataclass
class TableBytes:
    name: str
    pages: int
    bytes: int
    payload: int


@dataclass
class ChildRun:
    wall_s: float
    in_child_s: float
    tandem_imported: bool
    modules: int
    rss_kb: int
    anchor: str | None
    marks: dict[str, float] = field(default_factory=dict)


@dataclass
class Result:
    n: int
    saver: SaverKind
    durability: Durability
    db_path: Path
    journal_mode: str
    synchronous: int
    page_size: int
    start_s: float
    resume_s: float
    resumes: list[float]
    resumes_by_anchor: dict[str, list[float]]
    empty_bytes: int
    paused_bytes: int
    paused_freelist: int
    paused_tables: list[TableBytes]
    paused_rows: dict[str, float]
    done_bytes: int
    done_tables: list[TableBytes]
    pauses_per_thread: dict[int, int]
    threads_done: int
    peak_rss_kb: int
    extra_paused: list[str] = field(default_factory=list)


def percentile(values: Sequence[float], q: float) -> float:
    """The same nearest-rank percentile as bench/results.py."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def disk_bytes(path: Path) -> int:
    """The database file plus its WAL (the -shm index is shared memory, not data)."""
    wal = path.with_name(path.name + "-wal")
    return path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


async def _checkpoint(s: Saver) -> None:
    busy, _, _ = (await s.query("PRAGMA wal_checkpoint(TRUNCATE)"))[0]
    if busy:
        raise BenchFailure("wal_checkpoint(TRUNCATE) was blocked; the byte count would include the WAL")


async def _tables(s: Saver) -> list[TableBytes]:
    try:
        rows = await s.query(
            "SELECT name, count(*), sum(pgsize), sum(payload) FROM dbstat GROUP BY name ORDER BY 3 DESC"
        )
    except sqlite3.OperationalError:  # SQLite built without SQLITE_ENABLE_DBSTAT_VTAB
        return []
    return [TableBytes(name, pages, size, payload) for name, pages, size, payload in rows]


async def _row_facts(s: Saver, n: int) -> dict[str, float]:
    async def one(sql: str) -> float:
        return float((await s.query(sql))[0][0] or 0.0)

    return {
        "checkpoints per thread": await one("SELECT count(*) FROM checkpoints") / n,
        "checkpoints.checkpoint avg bytes": await one("SELECT avg(length(checkpoint)) FROM checkpoints"),
        "checkpoints.metadata avg bytes": await one("SELECT avg(length(metadata)) FROM checkpoints"),
        "writes per thread": await one("SELECT count(*) FROM writes") / n,
        "writes.value avg bytes": await one("SELECT avg(length(coalesce(value, ''))) FROM writes"),
    }


# --- the loop ---------------------------------------------------------------------------


async def _empty_db_bytes(kind: SaverKind, path: Path, pragmas: str) -> int:
    s = await Saver(kind, path, pragmas).open()
    try:
        await _checkpoint(s)
        return disk_bytes(path)
    finally:
        await s.close()


async def run_loop(
    n: int, workdir: Path, *, kind: SaverKind, durability: Durability, extra_paused: int = 0, pragmas: str = "full"
) -> Result:
    """bench.loop's workload on LangGraph, on a fresh database in ``workdir``; BenchFailure if it misbehaves."""
    if n < 1:
        raise ValueError("n must be at least 1")
    empty_bytes = await _empty_db_bytes(kind, workdir / "empty.db", pragmas)
    db_path = workdir / "loop.db"
    s = await Saver(kind, db_path, pragmas).open()
    try:
        journal_mode = str((await s.query("PRAGMA journal_mode"))[0][0])
        sync_level = int((await s.query("PRAGMA synchronous"))[0][0])
        page_size = int((await s.query("PRAGMA page_size"))[0][0])

        # Phase 1: start N threads; each must stop at its first pause.
        threads = [new_thread_id() for _ in range(n)]
        outs: list[dict[str, Any]] = []
        began = time.perf_counter()
        for thread_id in threads:
            outs.append(await s.invoke({"task": TASK, "requester": REQUESTER}, config_for(thread_id), durability))
        start_s = time.perf_counter() - began
        for thread_id, out in zip(threads, outs, strict=True):
            _expect(thread_id, out, 0)

        # Every thread paused: what is on disk?
        await _checkpoint(s)
        paused_bytes = disk_bytes(db_path)
        paused_freelist = int((await s.query("PRAGMA freelist_count"))[0][0])
        paused_tables = await _tables(s)
        paused_rows = await _row_facts(s, n)

        # Phase 2: approve every pause, round by round, timing each resume.
        resumes: list[float] = []
        by_anchor: dict[str, list[float]] = {a: [] for a in EXPECTED_ANCHORS}
        began = time.perf_counter()
        for number, anchor in enumerate(EXPECTED_ANCHORS, start=1):
            for thread_id in threads:
                config = config_for(thread_id)
                t0 = time.perf_counter()
                out = await s.invoke(Command(resume=APPROVE), config, durability)
                took = time.perf_counter() - t0
                resumes.append(took)
                by_anchor[anchor].append(took)
                _expect(thread_id, out, number)
        resume_s = time.perf_counter() - began

        pauses, done = await _verify(s, threads)
        await _checkpoint(s)
        done_bytes = disk_bytes(db_path)
        done_tables = await _tables(s)

        extra = []
        for _ in range(extra_paused):
            thread_id = new_thread_id()
            _expect(
                thread_id, await s.invoke({"task": TASK, "requester": REQUESTER}, config_for(thread_id), durability), 0
            )
            extra.append(thread_id)
    finally:
        await s.close()

    return Result(
        n=n,
        saver=kind,
        durability=durability,
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
        pauses_per_thread=pauses,
        threads_done=done,
        peak_rss_kb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        extra_paused=extra,
    )


def _expect(thread_id: str, out: dict[str, Any], resumed: int) -> None:
    """After ``resumed`` approvals a thread waits at the next expected pause, or is done after the last."""
    anchor = anchor_of(out)
    if resumed < len(EXPECTED_ANCHORS):
        if anchor != EXPECTED_ANCHORS[resumed]:
            raise BenchFailure(
                f"thread {thread_id}: after {resumed} approvals expected to wait at {EXPECTED_ANCHORS[resumed]},"
                f" but it waits at {anchor}"
            )
    elif anchor is not None or "output" not in out:
        raise BenchFailure(f"thread {thread_id}: after {resumed} approvals expected done, but it waits at {anchor}")


async def _verify(s: Saver, threads: list[str]) -> tuple[dict[int, int], int]:
    """From the checkpoints: every thread finished, with exactly the 3 expected approvals and 3 tool results."""
    counts: dict[int, int] = {}
    done = 0
    for thread_id in threads:
        snap = await s.get_state(config_for(thread_id))
        values = snap.values
        anchors = tuple(a["anchor"] for a in values.get("approvals", []))
        counts[len(anchors)] = counts.get(len(anchors), 0) + 1
        if anchors != EXPECTED_ANCHORS:
            raise BenchFailure(f"thread {thread_id} was approved at {anchors}, expected {EXPECTED_ANCHORS}")
        if snap.next or snap.interrupts or len(values.get("results", [])) != len(PLAN) or not values.get("output"):
            raise BenchFailure(f"thread {thread_id} is not finished: next={snap.next}, values={values}")
        done += 1
    return counts, done


# --- fresh processes ----------------------------------------------------------------------


def child_env(cache: Path) -> dict[str, str]:
    """As ``bench.spawn.child_env`` (not imported: nothing of Tandem here): compiled modules cached in ``cache``
    by the warm-up child, even where ``PYTHONDONTWRITEBYTECODE`` is set, so both sides are timed alike."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def python_baseline(repeats: int, env: dict[str, str] | None = None) -> list[float]:
    """``python -c pass``, spawn to exit, with this venv's interpreter."""
    times = []
    for _ in range(repeats + 1):
        began = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True, cwd=REPO_ROOT, env=env)
        times.append(time.perf_counter() - began)
    return times[1:]  # the first one warms the page cache


def cold_start(db: Path, threads: Sequence[str], kind: SaverKind, durability: Durability) -> list[ChildRun]:
    """One fresh ``python -m bench.langgraph_coldstart`` per paused thread; the first is a dropped warm-up."""
    runs = []
    for thread_id in threads:
        cmd = [sys.executable, "-m", "bench.langgraph_coldstart", str(db), thread_id]
        cmd += ["--saver", kind, "--durability", durability]
        began = time.perf_counter()
        env = child_env(db.parent / "pycache")
        proc = subprocess.Popen(cmd, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        assert proc.stdout is not None
        line = proc.stdout.readline()
        wall = time.perf_counter() - began
        _, err = proc.communicate()
        if proc.returncode != 0 or not line:
            raise BenchFailure(f"{' '.join(cmd)} failed ({proc.returncode}): {err.strip()[-2000:]}")
        data = json.loads(line)
        runs.append(
            ChildRun(
                wall_s=wall,
                in_child_s=float(data["in_child_s"]),
                tandem_imported=bool(data["tandem_imported"]),
                modules=int(data["modules"]),
                rss_kb=int(data["rss_kb"]),
                anchor=data["anchor"],
                marks={str(k): float(v) for k, v in data["marks"].items()},
            )
        )
    for r in runs:
        if r.anchor != EXPECTED_ANCHORS[1]:
            raise BenchFailure(f"cold-start resume stopped at {r.anchor}, expected {EXPECTED_ANCHORS[1]}")
    return runs[1:]


# --- report -------------------------------------------------------------------------------------


def versions() -> dict[str, str]:
    found = {}
    for name in PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "-"
    return found


def _fs_type(path: Path) -> str:
    best, kind = "", "?"
    try:
        with open("/proc/mounts") as mounts:
            for line in mounts:
                parts = line.split()
                if len(parts) > 2 and str(path).startswith(parts[1]) and len(parts[1]) > len(best):
                    best, kind = parts[1], parts[2]
    except OSError:
        pass
    return kind


def figures(r: Result, baseline: list[float], cold: list[ChildRun], load_before: float) -> dict[str, Any]:
    """What the report prints, as JSON-ready data (``--json``)."""
    med = statistics.median
    return {
        "system": "langgraph",
        "versions": versions(),
        "saver": "AsyncSqliteSaver" if r.saver == "async" else "SqliteSaver",
        "durability": r.durability,
        "n": r.n,
        "journal_mode": r.journal_mode,
        "synchronous": r.synchronous,
        "page_size": r.page_size,
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "cpus": os.cpu_count(),
        "load_before": load_before,
        "starts_per_s": r.n / r.start_s,
        "resumes_per_s": len(r.resumes) / r.resume_s,
        "resume_p50_ms": percentile(r.resumes, 50) * 1000,
        "resume_p99_ms": percentile(r.resumes, 99) * 1000,
        "resume_p50_ms_by_anchor": {a: percentile(t, 50) * 1000 for a, t in r.resumes_by_anchor.items()},
        "empty_db_bytes": r.empty_bytes,
        "bytes_per_paused_thread": (r.paused_bytes - r.empty_bytes) / r.n,
        "bytes_per_finished_thread": (r.done_bytes - r.empty_bytes) / r.n,
        "paused_rows": r.paused_rows,
        "cold_start_s": med(c.wall_s for c in cold) if cold else None,
        "cold_start_runs_s": [c.wall_s for c in cold],
        "cold_in_child_s": med(c.in_child_s for c in cold) if cold else None,
        "cold_marks_ms": {k: med(c.marks[k] for c in cold) * 1000 for k in cold[0].marks} if cold else {},
        "python_pass_s": med(baseline) if baseline else None,
        "peak_rss_mb": r.peak_rss_kb / 1024,
        "child_peak_rss_mb": med(c.rss_kb for c in cold) / 1024 if cold else None,
        "child_modules": med(c.modules for c in cold) if cold else None,
    }


def report(r: Result, f: dict[str, Any], cold: list[ChildRun], baseline: list[float]) -> bool:
    n = r.n
    ok = True
    sync_name = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}.get(r.synchronous, "?")
    print(f"LangGraph baseline — N={n} threads, the workload of bench.loop")
    print(f"  workload : {TASK!r}")
    print("             StateGraph plan → step1 (check_status) → step2 (read_logs) → step3 (deploy, risky) → result;")
    print(f"             interrupt() pauses {EXPECTED_ANCHORS}, each resumed with Command(resume=...)")
    print("  versions : " + ", ".join(f"{k} {v}" for k, v in f["versions"].items()))
    how = "graph.ainvoke, async nodes, aiosqlite" if r.saver == "async" else "graph.invoke, sync nodes, sqlite3"
    print(f"  saver    : {f['saver']} ({how}); durability={r.durability!r}")
    print(f"  database : {r.db_path} on {_fs_type(r.db_path)}")
    print(
        f"             PRAGMA journal_mode={r.journal_mode} synchronous={r.synchronous} ({sync_name})"
        f" page_size={r.page_size}"
    )
    print(f"  machine  : Python {f['python']}, SQLite {f['sqlite']}, {f['cpus']} CPUs, {platform.machine()}")
    print(f"             load average before the run: {f['load_before']:.2f} (1 min)")
    if f["pragmas"] == "default":
        print("  --pragmas default: the file as LangGraph opens it, no PRAGMA of the bench's own")
    elif r.synchronous != 2 or r.journal_mode.lower() != "wal":
        print("  !! not WAL + synchronous=FULL: not comparable with bench.loop")
        ok = False
    print()
    print(
        f"  pauses per thread: {dict(r.pauses_per_thread)} (every thread exactly {len(EXPECTED_ANCHORS)}: "
        f"{'yes' if r.pauses_per_thread == {3: n} else 'NO'}); threads done: {r.threads_done}/{n}"
    )
    print()
    head = f"  {'figure':34} {'measured':>14} {'issue quoted':>14}"
    print(head)
    print("  " + "-" * (len(head) - 2))

    def row(name: str, value: str, quoted: str = "") -> None:
        print(f"  {name:34} {value:>14} {quoted:>14}")

    row("starts/s (start → first pause)", f"{f['starts_per_s']:,.0f}")
    row("resumes/s", f"{f['resumes_per_s']:,.0f}")
    row("resume p50", f"{f['resume_p50_ms']:.3f} ms", f"{ISSUE_RESUME_MS:.1f} ms")
    row("resume p99", f"{f['resume_p99_ms']:.3f} ms")
    for anchor, ms in f["resume_p50_ms_by_anchor"].items():
        row(f"  p50 approving {anchor}", f"{ms:.3f} ms")
    row("bytes on disk per paused thread", f"{f['bytes_per_paused_thread']:,.0f} B", f"{ISSUE_BYTES:,} B")
    row("bytes per finished thread (info)", f"{f['bytes_per_finished_thread']:,.0f} B")
    if cold:
        row("cold start (spawn → 1st resume)", f"{f['cold_start_s']:.3f} s", f"{ISSUE_COLD_S:.1f} s")
        row("  python -c pass (this machine)", f"{f['python_pass_s']:.3f} s")
        row("  cold start minus python -c pass", f"{f['cold_start_s'] - f['python_pass_s']:.3f} s")
        row("  in child: import → resumed", f"{f['cold_in_child_s']:.3f} s")
        marks = f["cold_marks_ms"]
        phases = [("imports", None, "imported"), ("open saver + compile", "imported", "built")]
        phases += [
            ("ainvoke(Command(resume))" if r.saver == "async" else "invoke(Command(resume))", "built", "resumed")
        ]
        for label, begin, end in phases:
            if end in marks:
                row(f"    {label}", f"{marks[end] - (marks[begin] if begin else 0.0):.1f} ms")
    row("peak RSS, benchmark process", f"{f['peak_rss_mb']:.1f} MB")
    if cold:
        row("peak RSS, cold-start child", f"{f['child_peak_rss_mb']:.1f} MB")
    print()
    verb = "ainvoke" if r.saver == "async" else "invoke"
    print(
        f"  resume = one graph.{verb}(Command(resume={APPROVE}), config) on the thread, run to the next"
        f" interrupt or the end; {len(r.resumes)} resumes ({len(EXPECTED_ANCHORS)} per thread), timed one by one."
    )
    print(
        f"  bytes  = (loop.db + loop.db-wal after PRAGMA wal_checkpoint(TRUNCATE), with all {n} threads paused"
        f" at {EXPECTED_ANCHORS[0]}) − an empty DB with the saver's tables ({r.empty_bytes:,} B), ÷ N"
        f" (free pages then: {r.paused_freelist})."
    )
    if cold:
        print(
            f"  cold   = median of {len(cold)} fresh `python -m bench.langgraph_coldstart` processes (after 1 warm-up),"
            f" spawn → the child's line saying the resume returned; python -c pass: median of {len(baseline)}."
        )
        imported = sorted({c.tandem_imported for c in cold})
        print(f"           Tandem modules in the child's sys.modules: {imported} (must be [False])")
        print(f"           modules loaded by the child: {f['child_modules']:.0f}")
        if True in imported:
            print("  !! the cold-start child imported Tandem")
            ok = False
    if r.paused_tables:
        print()
        print(f"  where the bytes go with {n} threads paused (dbstat; per thread = bytes ÷ N):")
        _print_tables(r.paused_tables, n)
        for name, value in r.paused_rows.items():
            print(f"    {name:36} {value:10.1f}")
        print(f"  and with {n} threads finished:")
        _print_tables(r.done_tables, n)
    return ok


def _print_tables(tables: list[TableBytes], n: int) -> None:
    print(f"    {'object':44} {'pages':>7} {'bytes':>11} {'payload':>11} {'per thread':>10} {'payload/thr':>12}")
    for t in tables:
        print(f"    {t.name:44} {t.pages:7,} {t.bytes:11,} {t.payload:11,} {t.bytes / n:10,.0f} {t.payload / n:12,.0f}")


TANDEM_MODULES = ("agent", "storage", "cli", "bot", "blocks")


def tandem_imported() -> bool:
    return any(name.split(".")[0] in TANDEM_MODULES for name in sys.modules)


# --- entry point -------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.langgraph_baseline", description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=2000, help="N threads (default 2000)")
    parser.add_argument(
        "--saver",
        choices=("async", "sync"),
        default="async",
        help="async: AsyncSqliteSaver + ainvoke, as an async (Slack AsyncApp) bot would (default);"
        " sync: SqliteSaver + invoke",
    )
    parser.add_argument(
        "--durability",
        choices=("async", "sync", "exit"),
        default="async",
        help="LangGraph's durability mode (default: LangGraph's own default, async)",
    )
    parser.add_argument(
        "--pragmas",
        choices=tuple(PRAGMAS),
        default="full",
        help="full: WAL + synchronous=FULL set explicitly, as bench.loop has them (default);"
        " default: only what LangGraph's saver sets itself",
    )
    parser.add_argument("--cold-repeats", type=int, default=7, help="fresh processes timed for cold start")
    parser.add_argument(
        "--paused",
        type=int,
        default=0,
        help="leave K more threads paused at after_plan, named in the JSON (for bench.coldside); implies --keep",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON line at the end")
    parser.add_argument("--json-out", type=Path, help="also write that JSON to this file")
    parser.add_argument("--dir", type=Path, help="where the database goes (default: a new temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the temp dir")
    args = parser.parse_args(argv)

    workdir = args.dir or Path(tempfile.mkdtemp(prefix="langgraph-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()[0]
    try:
        repeats = max(0, args.cold_repeats)
        result = asyncio.run(
            run_loop(
                args.runs,
                workdir,
                kind=args.saver,
                durability=args.durability,
                extra_paused=(repeats + 1 if repeats else 0) + max(0, args.paused),
                pragmas=args.pragmas,
            )
        )
        left = result.extra_paused[repeats + 1 if repeats else 0 :]
        baseline = python_baseline(repeats, child_env(workdir / "pycache")) if repeats else []
        cold = (
            cold_start(result.db_path, result.extra_paused[: repeats + 1], args.saver, args.durability)
            if repeats
            else []
        )
        data = figures(result, baseline, cold, load_before) | {"pragmas": args.pragmas}
        data["db"], data["paused_threads"] = str(result.db_path), left
        ok = report(result, data, cold, baseline)
        if tandem_imported():
            print("  !! the baseline process imported Tandem modules")
            ok = False
        data["workload_ok"] = ok
        if args.json_out:
            args.json_out.write_text(json.dumps(data, indent=2) + "\n")
    finally:
        if not args.keep and not args.paused and args.dir is None:
            shutil.rmtree(workdir)
        else:
            print(f"\n  kept {workdir}")
    if args.json:  # the last line of stdout
        print()
        print(json.dumps(data))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
