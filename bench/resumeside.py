"""Resumes side by side: Tandem's loop and LangGraph's, on the same workload, in alternating rounds.

    python -m bench.resumeside --langgraph .venv-langgraph/bin/python --runs 2000 --rounds 2

Each round runs three processes one after another, in an order that rotates from round to round so that
whatever else the machine does falls on every side: Tandem (``bench.loop``: WAL, ``synchronous=FULL``), LangGraph
with the same PRAGMAs set explicitly (``bench.langgraph_baseline --pragmas full``), and LangGraph as its saver
opens the file on its own (``--pragmas default``). Both LangGraph sides use its default durability. Every
process checks its own workload (3 pauses per run, all done) and writes its figures as JSON; this prints them
per round, the medians, and Tandem's ratio to each LangGraph side against the target (resume p50 and resumes/s
both ≥ 3× LangGraph's).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.results import BenchFailure
from bench.spawn import REPO_ROOT, add_langgraph_option, langgraph_found

TARGET_RATIO = 3.0
SIDES = ("tandem", "langgraph full", "langgraph default")


def _command(side: str, python: str, runs: int, out: Path, workdir: Path) -> list[str]:
    common = ["--runs", str(runs), "--cold-repeats", "0", "--json-out", str(out), "--dir", str(workdir)]
    if side == "tandem":
        return [sys.executable, "-m", "bench.loop", "--brain", "fixed", *common]
    pragmas = side.split()[-1]
    return [python, "-m", "bench.langgraph_baseline", "--pragmas", pragmas, *common]


def run_side(side: str, python: str, runs: int, workdir: Path) -> dict[str, Any]:
    """One process of one side; its figures, or BenchFailure saying why it failed."""
    out = workdir / f"{side.replace(' ', '-')}.json"
    where = workdir / side.replace(" ", "-")
    where.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(_command(side, python, runs, out, where), cwd=REPO_ROOT, capture_output=True, text=True)
    if proc.returncode != 0 or not out.exists():
        raise BenchFailure(f"{side} failed ({proc.returncode}): {(proc.stderr or proc.stdout).strip()[-2000:]}")
    data: dict[str, Any] = json.loads(out.read_text())
    if not data.get("workload_ok", False):
        raise BenchFailure(f"{side}: its workload check failed:\n{proc.stdout[-3000:]}")
    return data


def measure(python: str, runs: int, rounds: int, workdir: Path) -> dict[str, list[dict[str, Any]]]:
    samples: dict[str, list[dict[str, Any]]] = {side: [] for side in SIDES}
    for number in range(rounds):
        order = SIDES[number % len(SIDES) :] + SIDES[: number % len(SIDES)]
        for side in order:
            samples[side].append(run_side(side, python, runs, workdir / f"round-{number}"))
    return samples


def report(samples: dict[str, list[dict[str, Any]]], runs: int, load_before: float) -> bool:
    """Print the figures; True when Tandem met both ratio targets against both LangGraph sides."""
    med = statistics.median
    rounds = len(samples["tandem"])
    print(f"Resumes side by side: {rounds} rounds of {runs} runs (3 resumes each) per side, rotating order")
    print(f"  load average before: {load_before:.2f}, after: {os.getloadavg()[0]:.2f} (1 min; {os.cpu_count()} CPUs)")
    sync = {side: {str(s.get("synchronous")) for s in samples[side]} for side in SIDES}  # "None": not reported
    print(f"  PRAGMA synchronous read back: {', '.join(f'{side} {sorted(v)}' for side, v in sync.items())}")
    print(f"  {'side':20} {'resume p50 (per round)':>32} {'resumes/s (per round)':>30} {'B/paused run':>13}")
    for side in SIDES:
        p50s = " / ".join(f"{s['resume_p50_ms']:.2f}" for s in samples[side])
        rates = " / ".join(f"{s['resumes_per_s']:,.0f}" for s in samples[side])
        size = med(s["bytes_per_paused_thread"] for s in samples[side])
        print(f"  {side:20} {p50s + ' ms':>32} {rates:>30} {size:>11,.0f} B")
    ok = True
    ours = samples["tandem"]
    for side in SIDES[1:]:
        theirs = samples[side]
        p50 = [b["resume_p50_ms"] / a["resume_p50_ms"] for a, b in zip(ours, theirs, strict=True)]
        rate = [a["resumes_per_s"] / b["resumes_per_s"] for a, b in zip(ours, theirs, strict=True)]
        size = med(b["bytes_per_paused_thread"] for b in theirs) / med(a["bytes_per_paused_thread"] for a in ours)
        met = min(med(p50), med(rate)) >= TARGET_RATIO
        ok = ok and met
        print(
            f"  Tandem vs {side}: resume p50 {' / '.join(f'{r:.2f}x' for r in p50)} faster (median {med(p50):.2f}x),"
            f" resumes/s {' / '.join(f'{r:.2f}x' for r in rate)} (median {med(rate):.2f}x),"
            f" {size:.1f}x smaller; target ≥ {TARGET_RATIO:.0f}x: {'MET' if met else 'MISSED'}"
        )
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.resumeside", description=__doc__.split("\n")[0])
    add_langgraph_option(parser)
    parser.add_argument("--runs", type=int, default=2000, help="runs per side per round (default 2000)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds (default 2)")
    args = parser.parse_args(argv)
    if not langgraph_found(args.langgraph):
        return 2
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="tandem-resumeside-") as workdir:
        samples = measure(args.langgraph, max(1, args.runs), max(1, args.rounds), Path(workdir))
    report(samples, args.runs, load_before)
    return 0


if __name__ == "__main__":
    sys.exit(main())
