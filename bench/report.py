"""Printing the figures next to the issue's baseline and targets."""

from __future__ import annotations

import os
import platform
import sqlite3
import statistics
from pathlib import Path

from bench.coldstart import HEAVY
from bench.results import ChildRun, LoopResult, TableBytes, percentile
from bench.workload import BRAIN_LABELS, EXPECTED_ANCHORS, TASK

# LangGraph 1.2 + SqliteSaver on the same workload (from the issue), and our targets.
BASE_RESUME_MS = 3.0
BASE_BYTES = 7_600  # 7.6 KB, read as 1 KB = 1000 B (the stricter reading)
BASE_COLD_S = 0.5
TARGET_RESUME_MS = 1.0
TARGET_BYTES = 2_500
TARGET_COLD_S = 0.25


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


def _verdict(ok: bool) -> str:
    return "MET" if ok else "MISSED"


def figures(result: LoopResult) -> dict[str, float | int | str]:
    """The loop's headline figures as JSON-ready data (``--json-out``; :mod:`bench.resumeside` reads them)."""
    resumes = len(result.resumes)
    return {
        "system": "tandem",
        "n": result.n,
        "journal_mode": result.journal_mode,
        "synchronous": result.synchronous,
        "starts_per_s": result.n / result.start_s,
        "resumes_per_s": resumes / result.resume_s,
        "resume_p50_ms": percentile(result.resumes, 50) * 1000,
        "resume_p99_ms": percentile(result.resumes, 99) * 1000,
        "bytes_per_paused_thread": (result.paused_bytes - result.empty_bytes) / result.n,
        "durable_commits_per_resume": result.durable_commits / resumes,
        "runs_done": result.runs_done,
    }


def report(
    result: LoopResult,
    baseline: list[float],
    cold: list[ChildRun],
    wiring: list[ChildRun],
    imports: str,
    load_before: float = 0.0,
) -> bool:
    """Print the figures; True when the workload checks (not the targets) all held."""
    n = result.n
    ok = True
    resumes = len(result.resumes)
    p50 = percentile(result.resumes, 50) * 1000
    p99 = percentile(result.resumes, 99) * 1000
    per_run = (result.paused_bytes - result.empty_bytes) / n
    cold_p50 = statistics.median(r.wall_s for r in cold) if cold else float("nan")
    base_p50 = statistics.median(baseline) if baseline else float("nan")
    sync_name = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}.get(result.synchronous, "?")

    print(f"Tandem loop benchmark — N={n} runs")
    print(f"  workload : {TASK!r}")
    print(f"             3 steps (check_status, read_logs, deploy[risk=deploy, last]); anchors {EXPECTED_ANCHORS}")
    print(f"  brain    : {BRAIN_LABELS[result.brain]}  ({result.brain_note})")
    print(f"  database : {result.db_path} on {_fs_type(result.db_path)}")
    where = (
        "on a database thread (--db-thread: the CLI's store)"
        if result.db_thread
        else ("on the runtime's loop, as tandem serve opens it (--db-thread: on a thread of its own)")
    )
    print(f"             called {where}")
    print(
        f"             PRAGMA journal_mode={result.journal_mode} synchronous={result.synchronous} ({sync_name})"
        f" page_size={result.page_size}"
    )
    print(
        f"  machine  : Python {platform.python_version()}, SQLite {sqlite3.sqlite_version},"
        f" {os.cpu_count()} CPUs, {platform.machine()}"
    )
    print(
        f"             load average before the run: {load_before:.2f} (1 min; other work on the machine skews timings)"
    )
    if result.profile:
        print("  !! --profile: the resume timings below are inflated by cProfile")
    if result.every_commit_durable:
        print("  --every-commit-durable: every transition waits for the disk (the commits are not shared)")
    if result.sync_override:
        print(f"  !! DIAGNOSTIC: synchronous forced to {sync_name} with --synchronous; not the product's figures")
    elif result.synchronous != 2:
        print("  !! synchronous is not FULL: storage/db.py changed; these figures are not comparable")
        ok = False
    print()
    print(
        f"  reviews per run: {dict(result.reviews_per_run)} (every run exactly {len(EXPECTED_ANCHORS)}: "
        f"{'yes' if result.reviews_per_run == {3: n} else 'NO'});"
        f" runs done: {result.runs_done}/{n}"
    )
    print()
    head = f"  {'figure':34} {'measured':>14} {'target':>12} {'LangGraph 1.2':>14} {'vs LangGraph':>14}  verdict"
    print(head)
    print("  " + "-" * (len(head) - 2))

    def row(name: str, value: str, target: str = "", base: str = "", ratio: str = "", verdict: str = "") -> None:
        print(f"  {name:34} {value:>14} {target:>12} {base:>14} {ratio:>14}  {verdict}")

    row("starts/s (start → first anchor)", f"{n / result.start_s:,.0f}")
    row("resumes/s", f"{resumes / result.resume_s:,.0f}")
    row(
        "resume p50",
        f"{p50:.3f} ms",
        f"≤ {TARGET_RESUME_MS:.2f} ms",
        f"{BASE_RESUME_MS:.1f} ms",
        f"{BASE_RESUME_MS / p50:.2f}x faster",
        _verdict(p50 <= TARGET_RESUME_MS),
    )
    row("resume p99", f"{p99:.3f} ms")
    row("durable commits per resume", f"{result.durable_commits / resumes:.2f}")
    row("  + commits not waiting for disk", f"{result.lazy_commits / resumes:.2f}")
    for anchor, times in result.resumes_by_anchor.items():
        row(f"  p50 approving {anchor}", f"{percentile(times, 50) * 1000:.3f} ms")
    row(
        "bytes on disk per paused run",
        f"{per_run:,.0f} B",
        f"≤ {TARGET_BYTES:,} B",
        f"{BASE_BYTES:,} B",
        f"{BASE_BYTES / per_run:.2f}x smaller" if per_run > 0 else "(too few runs to grow the file)",
        _verdict(per_run <= TARGET_BYTES),
    )
    row("bytes per finished run (info)", f"{(result.done_bytes - result.empty_bytes) / n:,.0f} B")
    if cold:
        row(
            "cold start (spawn → 1st resume)",
            f"{cold_p50:.3f} s",
            f"≤ {TARGET_COLD_S:.2f} s",
            f"{BASE_COLD_S:.1f} s",
            f"{BASE_COLD_S / cold_p50:.2f}x faster",
            _verdict(cold_p50 <= TARGET_COLD_S),
        )
        row("  python -c pass (this machine)", f"{base_p50:.3f} s")
        row("  cold start minus python -c pass", f"{cold_p50 - base_p50:.3f} s")
        row("  in child: import → resumed", f"{statistics.median(r.in_child_s for r in cold):.3f} s")
        row("  child CPU time, spawn → exit", f"{statistics.median(r.cpu_s for r in cold):.3f} s")
        phases = [("imports", None, "imported"), ("open store", "imported", "opened")]
        phases += [("build runtime + tools", "opened", "built"), ("decide()", "built", "resumed")]
        for label, begin, end in phases:
            spans = [r.marks[end] - (r.marks[begin] if begin else 0.0) for r in cold if end in r.marks]
            if spans:
                row(f"    {label}", f"{statistics.median(spans) * 1000:.1f} ms")
    if wiring:
        row("cold start via cli.wiring (info)", f"{statistics.median(r.wall_s for r in wiring):.3f} s")
    row("peak RSS, benchmark process", f"{result.peak_rss_kb / 1024:.1f} MB")
    if cold:
        row("peak RSS, cold-start child", f"{statistics.median(r.rss_kb for r in cold) / 1024:.1f} MB")
    print()
    print(
        f"  resume = one runtime.decide(run, Approve(), review_id=...) driven to the next pause or the end;"
        f" {resumes} resumes ({len(EXPECTED_ANCHORS)} per run), timed one by one."
    )
    print(
        f"  bytes  = (loop.db + loop.db-wal after PRAGMA wal_checkpoint(TRUNCATE), with all {n} runs paused"
        f" at {EXPECTED_ANCHORS[0]}) − an empty migrated DB ({result.empty_bytes:,} B), ÷ N."
    )
    print("           The checkpoint copies every committed page from the WAL into the main file and truncates")
    print("           the WAL to 0 bytes, so the file size is the data itself, not WAL frames awaiting a checkpoint")
    print(f"           (free pages at that point: {result.paused_freelist}).")
    if cold:
        print(
            f"  cold   = median of {len(cold)} fresh `python -m bench.coldstart` processes (after 1 warm-up),"
            " spawn → the child's line saying the resume committed; python -c pass: median of"
            f" {len(baseline)}, spawn → exit."
        )
        heavy = sorted({name for r in cold for name in r.heavy})
        print(
            f"           heavy packages in the child: {', '.join(heavy) or 'none'} (must be none of {', '.join(HEAVY)})"
        )
        print(f"           modules loaded by the child: {statistics.median(r.modules for r in cold):.0f}")
        if heavy:
            print("  !! the cold-start child imported heavy packages")
            ok = False
        if wiring:
            print(
                f"           via cli.wiring (info): {', '.join(sorted({n for r in wiring for n in r.heavy})) or 'none'}"
            )

    if result.paused_tables:
        print()
        print(f"  where the bytes go with {n} runs paused (dbstat; per run = bytes ÷ N):")
        _print_tables(result.paused_tables, n)
        for name, value in result.paused_rows.items():
            print(f"    {name:32} {value:10.1f}")
        print(f"  and with {n} runs finished:")
        _print_tables(result.done_tables, n)
    if imports:
        print()
        print("  cold-start child (-X importtime, one run), " + imports.replace("\n", "\n  "))
    if result.profile:
        print()
        print("  cProfile of the resume phase (figures above are inflated by profiling):")
        print(result.profile)
    return ok


def _print_tables(tables: list[TableBytes], n: int) -> None:
    print(f"    {'object':44} {'pages':>7} {'bytes':>11} {'payload':>11} {'per run':>9} {'payload/run':>12}")
    for t in tables:
        print(f"    {t.name:44} {t.pages:7,} {t.bytes:11,} {t.payload:11,} {t.bytes / n:9,.0f} {t.payload / n:12,.0f}")
