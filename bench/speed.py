"""Every speed goal at once: resumes, bytes, cold start and acks, each beside its baseline, in one run.

    python -m bench.speed --langgraph .venv-langgraph/bin/python           # quiet
    python -m bench.speed --langgraph .venv-langgraph/bin/python --hog 1   # one core kept busy throughout

Runs :mod:`bench.resumeside` (Tandem against LangGraph with ``synchronous=FULL`` and with its defaults),
:mod:`bench.coldside` (fresh processes resuming a paused run) and :mod:`bench.ack` (signed clicks against a
bare Bolt app) one after another; each alternates its own sides, so the machine's load falls on both. Prints
each one's report, then one table: every figure, its baseline, the ratio and the goal, MET or MISSED.
``--hog N`` keeps N busy processes running while resumes and cold starts are timed, and passes ``--hog N`` to
the ack bench (which hogs while its rounds are timed, not while it sets up its runs).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import ack, coldside, resumeside
from bench.spawn import add_langgraph_option, langgraph_found

RESUME_RATIO = resumeside.TARGET_RATIO
BYTES_RATIO = 3.0
COLD_S = coldside.TARGET_S
COLD_RATIO = coldside.TARGET_RATIO
ACK_RATIO = ack.TARGET_RATIO
WORK_S = 3.0
"""Clicks must not wait longer than this for their work: from a burst's last answer until every run it
approved has moved on to its next pause."""


@dataclass(frozen=True)
class Row:
    figure: str
    tandem: str
    baseline: str
    ratio: str
    goal: str
    met: bool | None
    """None: shown for reading, no goal of its own."""


def _med(values: Sequence[float]) -> float:
    return statistics.median(values)


def resume_rows(samples: dict[str, list[dict[str, Any]]]) -> list[Row]:
    """Resume p50 and resumes/s against each LangGraph side (median of the per-round ratios), and bytes."""
    ours = samples["tandem"]
    rows = []
    for side, label in (("langgraph full", "synchronous=FULL"), ("langgraph default", "its defaults")):
        theirs = samples[side]
        p50 = _med([b["resume_p50_ms"] / a["resume_p50_ms"] for a, b in zip(ours, theirs, strict=True)])
        rate = _med([a["resumes_per_s"] / b["resumes_per_s"] for a, b in zip(ours, theirs, strict=True)])
        rows.append(
            Row(
                f"resume p50, LangGraph {label}",
                f"{_med([s['resume_p50_ms'] for s in ours]):.2f} ms",
                f"{_med([s['resume_p50_ms'] for s in theirs]):.2f} ms",
                f"{p50:.2f}x faster",
                f"≥ {RESUME_RATIO:.0f}x",
                p50 >= RESUME_RATIO,
            )
        )
        rows.append(
            Row(
                f"resumes/s, LangGraph {label}",
                f"{_med([s['resumes_per_s'] for s in ours]):,.0f}",
                f"{_med([s['resumes_per_s'] for s in theirs]):,.0f}",
                f"{rate:.2f}x",
                f"≥ {RESUME_RATIO:.0f}x",
                rate >= RESUME_RATIO,
            )
        )
    our_bytes = _med([s["bytes_per_paused_thread"] for s in ours])
    their_bytes = _med([s["bytes_per_paused_thread"] for s in samples["langgraph full"]])
    smaller = their_bytes / our_bytes
    rows.append(
        Row(
            "bytes per paused run",
            f"{our_bytes:,.0f} B",
            f"{their_bytes:,.0f} B",
            f"{smaller:.1f}x smaller",
            f"≥ {BYTES_RATIO:.0f}x",
            smaller >= BYTES_RATIO,
        )
    )
    return rows


def cold_rows(samples: dict[str, list[coldside.Sample]]) -> list[Row]:
    """Cold start, spawn → first resume: Tandem's wall p50 against 0.25 s, and against LangGraph's."""
    ours = _med([wall for wall, _ in samples["tandem"]])
    theirs = _med([wall for wall, _ in samples["langgraph"]])
    return [
        Row("cold start, spawn → first resume", f"{ours:.3f} s", "", "", f"≤ {COLD_S} s", ours <= COLD_S),
        Row(
            "cold start ÷ LangGraph's",
            f"{ours:.3f} s",
            f"{theirs:.3f} s",
            f"{ours / theirs:.2f}",
            f"≤ {COLD_RATIO}",
            ours / theirs <= COLD_RATIO,
        ),
    ]


def ack_rows(result: ack.Result) -> list[Row]:
    """Ack p99 against a bare Bolt app (median of the rounds' ratios, and all rounds pooled), and the work
    the clicks started: the slowest round's."""
    ours, bare = result.timed(ack.TANDEM), result.timed(ack.BARE)
    rounds = sorted({b.round for b in ours})
    per_round = [
        ack.Figures.of([b for b in ours if b.round == n]).p99 / ack.Figures.of([b for b in bare if b.round == n]).p99
        for n in rounds
    ]
    median = _med(per_round)
    p99, bare_p99 = ack.Figures.of(ours).p99, ack.Figures.of(bare).p99
    worked = max(b.worked for b in ours)
    drain = max(b.drain for b in ours)
    return [
        Row(
            "ack p99, median of the rounds",
            f"{len(rounds)} rounds",
            "bare Bolt",
            f"{median:.2f}x",
            f"≤ {ACK_RATIO}x",
            median <= ACK_RATIO,
        ),
        Row(
            "ack p99, all rounds pooled",
            f"{p99 * 1000:.1f} ms",
            f"{bare_p99 * 1000:.1f} ms",
            f"{p99 / bare_p99:.2f}x",
            f"≤ {ACK_RATIO}x",
            p99 / bare_p99 <= ACK_RATIO,
        ),
        Row("work after a burst (slowest round)", f"{worked:.2f} s", "", "", f"≤ {WORK_S:.0f} s", worked <= WORK_S),
        Row("drain after a burst (slowest round)", f"{drain:.2f} s", "", "", "", None),
    ]


def table(rows: Sequence[Row]) -> str:
    head = f"  {'figure':38} {'Tandem':>12} {'baseline':>12} {'ratio':>14} {'goal':>8}"
    lines = [head, "  " + "-" * (len(head) - 2)]
    for r in rows:
        verdict = "" if r.met is None else "MET" if r.met else "MISSED"
        lines.append(f"  {r.figure:38} {r.tandem:>12} {r.baseline:>12} {r.ratio:>14} {r.goal:>8}  {verdict}")
    return "\n".join(lines)


@contextmanager
def hogging(count: int) -> Iterator[None]:
    """``count`` other processes, each keeping one core busy, until the block ends (as :func:`bench.ack.hogging`)."""
    hogs = [subprocess.Popen([sys.executable, "-c", ack.HOG], stdin=subprocess.DEVNULL) for _ in range(count)]
    try:
        yield
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.speed", description=__doc__.split("\n")[0])
    add_langgraph_option(parser)
    parser.add_argument("--runs", type=int, default=2000, help="runs per side per resume round (default 2000)")
    parser.add_argument("--rounds", type=int, default=2, help="resume rounds (default 2)")
    parser.add_argument("--cold-repeats", type=int, default=11, help="cold-start rounds after a warm-up (default 11)")
    parser.add_argument("--ack-requests", type=int, default=2000, help="timed clicks per target (default 2000)")
    parser.add_argument("--ack-rounds", type=int, default=4, help="alternating ack rounds (default 4)")
    parser.add_argument("--hog", type=int, default=0, help="busy processes while timing (default 0: quiet)")
    args = parser.parse_args(argv)
    if not langgraph_found(args.langgraph):
        return 2
    if args.ack_requests < args.ack_rounds or min(args.runs, args.rounds, args.cold_repeats, args.ack_rounds) < 1:
        parser.error("need --runs, --rounds, --cold-repeats, --ack-rounds >= 1 and --ack-requests >= --ack-rounds")
    hog = max(0, args.hog)
    loads = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="tandem-speed-") as tmp:
        workdir = Path(tmp)
        with hogging(hog):
            resumes = resumeside.measure(args.langgraph, args.runs, args.rounds, workdir / "resumes")
            loads.append(os.getloadavg()[0])
            resumeside.report(resumes, args.runs, loads[0])
            print()
            (workdir / "cold").mkdir()
            cold = coldside.measure(args.langgraph, args.cold_repeats, workdir / "cold")
            loads.append(os.getloadavg()[0])
            coldside.report(cold, loads[1])
            print()
        plan = ack.Plan(requests=args.ack_requests, rounds=args.ack_rounds, warmup=ack.Plan.concurrency, hog=hog)
        (workdir / "ack").mkdir()
        clicks = asyncio.run(ack.run_bench(plan, workdir / "ack", log=lambda s: print(s, file=sys.stderr)))
        loads.append(os.getloadavg()[0])
        print(ack.describe(plan, clicks))
        print(ack.table(clicks, plan))
        print()
    how = f"{hog} core(s) kept busy while timing" if hog else "quiet (no hog)"
    print(f"Every speed goal, each beside its baseline, measured in this one run: {how}")
    print(f"  load average (1 min) at the start of each part: {' → '.join(f'{x:.2f}' for x in loads)}")
    print(table([*resume_rows(resumes), *cold_rows(cold), *ack_rows(clicks)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
