"""Cold start side by side: Tandem's and LangGraph's fresh processes resume a paused run, alternately.

    python -m bench.coldside --langgraph .venv-langgraph/bin/python --repeats 15

Tandem's side is ``bench.coldstart`` on a database of runs paused at ``after_plan`` (:mod:`bench.loop`'s
workload); LangGraph's is ``bench.langgraph_coldstart`` on threads paused at the same anchor, prepared by
``bench.langgraph_baseline --paused`` in LangGraph's own virtualenv. Each round spawns one child of each,
in alternating order, so whatever else the machine does falls on both; the first round is a dropped
warm-up (page cache; it writes each side's compiled modules to a cache of its own, see
:func:`bench.spawn.child_env`). Per child: wall time from spawn to its line saying the resume is done,
and its CPU time. Prints the medians, the ratio of the medians and the median of the per-round ratios,
against the targets (Tandem ≤ 0.25 s and ≤ ½ of LangGraph's).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.loop import run_loop
from bench.results import BenchFailure
from bench.spawn import REPO_ROOT, add_langgraph_option, child_env, langgraph_found, spawn_until_line
from bench.workload import EXPECTED_ANCHORS

TARGET_S = 0.25
TARGET_RATIO = 0.5
Sample = tuple[float, float]  # wall s, CPU s


def _langgraph_threads(python: str, workdir: Path, count: int) -> tuple[str, list[str]]:
    out = workdir / "langgraph.json"
    cmd = [python, "-m", "bench.langgraph_baseline", "--runs", "1", "--cold-repeats", "0"]
    cmd += ["--paused", str(count), "--dir", str(workdir / "langgraph"), "--json-out", str(out)]
    proc = subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BenchFailure(f"preparing LangGraph's threads failed: {proc.stderr.strip()[-2000:]}")
    data = json.loads(out.read_text())
    return str(data["db"]), [str(t) for t in data["paused_threads"]]


def _child(cmd: list[str], env: dict[str, str]) -> Sample:
    wall, line, cpu = spawn_until_line(cmd, env)
    anchor = json.loads(line)["anchor"]
    if anchor != EXPECTED_ANCHORS[1]:
        raise BenchFailure(f"{cmd[2]} stopped at {anchor}, expected {EXPECTED_ANCHORS[1]}")
    return wall, cpu


def _pass(python: str, env: dict[str, str]) -> float:
    wall, _, _ = spawn_until_line([python, "-c", "print()"], env)
    return wall


def measure(langgraph: str, repeats: int, workdir: Path) -> dict[str, list[Sample]]:
    tandem = asyncio.run(run_loop(1, workdir, brain="llm", extra_paused=repeats + 1))
    lg_db, threads = _langgraph_threads(langgraph, workdir, repeats + 1)
    samples: dict[str, list[Sample]] = {"tandem": [], "langgraph": [], "tandem pass": [], "langgraph pass": []}
    envs = {"tandem": child_env(workdir / "pycache-tandem"), "langgraph": child_env(workdir / "pycache-langgraph")}
    for i, (paused, thread) in enumerate(zip(tandem.extra_paused, threads, strict=True)):
        ours = [sys.executable, "-m", "bench.coldstart", str(tandem.db_path), paused.run_id, paused.review_id]
        theirs = [langgraph, "-m", "bench.langgraph_coldstart", lg_db, thread]
        pair = [("tandem", ours), ("langgraph", theirs)]
        for name, cmd in pair if i % 2 == 0 else pair[::-1]:
            sample = _child(cmd, envs[name])
            if i:  # the first round warms the page cache
                samples[name].append(sample)
        if i:
            samples["tandem pass"].append((_pass(sys.executable, envs["tandem"]), 0.0))
            samples["langgraph pass"].append((_pass(langgraph, envs["langgraph"]), 0.0))
    return samples


def report(samples: dict[str, list[Sample]], load_before: float) -> None:
    med = statistics.median
    ours, theirs = samples["tandem"], samples["langgraph"]
    print(f"Cold start side by side, spawn → first resume: {len(ours)} rounds after a warm-up, alternating order")
    print(f"  load average before: {load_before:.2f}, after: {os.getloadavg()[0]:.2f} (1 min; {os.cpu_count()} CPUs)")
    print(f"  {'':30} {'wall p50':>10} {'wall min':>10} {'CPU p50':>10} {'python -c':>10}")
    for name in ("tandem", "langgraph"):
        walls, cpus = [w for w, _ in samples[name]], [c for _, c in samples[name]]
        floor = med(w for w, _ in samples[f"{name} pass"])
        print(f"  {name:30} {med(walls):9.3f}s {min(walls):9.3f}s {med(cpus):9.3f}s {floor:9.3f}s")
    wall_ratio = med(w for w, _ in ours) / med(w for w, _ in theirs)
    round_ratio = med(a[0] / b[0] for a, b in zip(ours, theirs, strict=True))
    cpu_ratio = med(c for _, c in ours) / med(c for _, c in theirs)
    tandem_s = med(w for w, _ in ours)
    met = "MET" if tandem_s <= TARGET_S else "MISSED"
    print(f"  Tandem, wall p50: {tandem_s:.3f} s, target ≤ {TARGET_S:.2f} s: {met}")
    verdict = "MET" if wall_ratio <= TARGET_RATIO else "MISSED"
    print(f"  Tandem ÷ LangGraph, wall p50s: {wall_ratio:.2f} (target ≤ {TARGET_RATIO}: {verdict});")
    print(f"    median of the per-round ratios {round_ratio:.2f}; CPU p50s {cpu_ratio:.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.coldside", description=__doc__.split("\n")[0])
    add_langgraph_option(parser)
    parser.add_argument("--repeats", type=int, default=15, help="rounds timed, after one warm-up (default 15)")
    args = parser.parse_args(argv)
    if not langgraph_found(args.langgraph):
        return 2
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="tandem-coldside-") as workdir:
        report(measure(args.langgraph, max(1, args.repeats), Path(workdir)), load_before)
    return 0


if __name__ == "__main__":
    sys.exit(main())
