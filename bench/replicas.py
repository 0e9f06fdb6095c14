"""Resumes per second on PostgreSQL with one replica, then two, sharing one database.

``python -m bench.replicas --runs 200`` starts a throwaway durable PostgreSQL server
(Debian's ``postgresql`` package, as ``bench.backends`` does). For each replica count it
starts ``--runs`` fresh runs of the loop workload (:mod:`bench.workload`), each paused at
its first anchor, splits them between that many replica processes (each with its own
Runtime and pool, ``--concurrency`` runs driven at once), releases them together and
times how long all of them take to approve every run through its three anchors.
Prints resumes per second and the ratio; asserts no speed. ``--rounds`` alternates the
order (1 then 2, 2 then 1, ...) so the machine's load drifts over both alike. Each trial
also prints the load average before it and the CPU seconds the replicas used: on a machine
with fewer free cores than replicas plus the server, two replicas cannot run side by side,
and the bench says so instead of reporting the ratio as Tandem's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.models import Approve, RunState
from agent.runtime import Runtime
from bench.results import BenchFailure
from bench.workload import EXPECTED_ANCHORS, POLICY, REQUESTER, REVIEWER, TASK, make_brain, registry
from storage.postgres.store import PgStore
from tests.pgserver import PgServer

ROOT = Path(__file__).resolve().parents[1]


async def approve_all(runtime: Runtime, state: RunState) -> int:
    """Approve one run at every anchor; returns how many resumes that took."""
    for number, anchor in enumerate(EXPECTED_ANCHORS, start=1):
        if state.pending is None or state.pending.anchor != anchor:
            raise BenchFailure(f"run {state.id} is not at {anchor} before approval {number}")
        state = await runtime.decide(state.id, Approve(), REVIEWER, review_id=state.pending.id)
    if state.status != "done":
        raise BenchFailure(f"run {state.id} is not done after three approvals")
    return len(EXPECTED_ANCHORS)


def wait_for_go(ready: Path, go: Path) -> None:
    ready.touch()
    deadline = time.monotonic() + 120
    while not go.exists():
        if time.monotonic() > deadline:
            raise BenchFailure("never told to go")
        time.sleep(0.001)


async def child(url: str, ids: list[str], concurrency: int, ready: Path, go: Path) -> dict[str, Any]:
    """One replica: drive its share of the runs, ``concurrency`` at a time, once told to go."""
    async with PgStore(url, max_size=concurrency + 2) as store:
        runtime = Runtime(store, make_brain("fixed"), registry(), config=POLICY)
        queue = list(ids)
        await asyncio.to_thread(wait_for_go, ready, go)
        began = time.perf_counter()

        async def worker() -> int:
            done = 0
            while queue:
                state, _ = await store.load(queue.pop())
                done += await approve_all(runtime, state)
            return done

        resumes = sum(await asyncio.gather(*(worker() for _ in range(concurrency))))
        return {"resumes": resumes, "seconds": time.perf_counter() - began}


async def paused_runs(url: str, n: int) -> list[str]:
    async with PgStore(url) as store:
        runtime = Runtime(store, make_brain("fixed"), registry(), config=POLICY)
        return [(await runtime.start(TASK, REQUESTER)).id for _ in range(n)]


TARGET = 1.6


@dataclass
class Trial:
    replicas: int
    resumes: int
    seconds: float
    cpu: float
    """CPU seconds (user + system) the replica processes used, set-up included."""
    load: float
    """1-minute load average just before the trial."""

    @property
    def rate(self) -> float:
        return self.resumes / self.seconds


def cpu_of_children() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def trial(url: str, workdir: Path, replicas: int, runs: int, concurrency: int, label: str = "") -> Trial:
    """Total resumes, seconds from the go signal until the last replica finished, CPU used, load before."""
    ids = asyncio.run(paused_runs(url, runs))
    load = os.getloadavg()[0]
    cpu_before = cpu_of_children()
    go = workdir / f"go-{label}{replicas}"
    ready = [workdir / f"ready-{label}{replicas}-{i}" for i in range(replicas)]
    shares = [workdir / f"ids-{label}{replicas}-{i}.json" for i in range(replicas)]
    for i, share in enumerate(shares):
        share.write_text(json.dumps(ids[i::replicas]))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "bench.replicas", "--child", url, str(share), str(concurrency), str(flag), str(go)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for flag, share in zip(ready, shares, strict=True)
    ]
    try:
        while not all(flag.exists() for flag in ready):
            if any(p.poll() is not None for p in procs):
                raise BenchFailure(f"a replica exited early: {[p.communicate()[1][-500:] for p in procs]}")
            time.sleep(0.01)
        began = time.perf_counter()
        go.touch()
        outputs = [p.communicate(timeout=600) for p in procs]
        seconds = time.perf_counter() - began
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for p, (_, err) in zip(procs, outputs, strict=True):
        if p.returncode != 0:
            raise BenchFailure(f"a replica failed: {err[-1000:]}")
    resumes = sum(json.loads(out)["resumes"] for out, _ in outputs)
    if resumes != runs * len(EXPECTED_ANCHORS):
        raise BenchFailure(f"{resumes} resumes, expected {runs * len(EXPECTED_ANCHORS)}")
    return Trial(replicas, resumes, seconds, cpu_of_children() - cpu_before, load)


def run(runs: int, concurrency: int, workdir: Path, rounds: int = 2) -> list[Trial]:
    """``rounds`` rounds of one trial per replica count, alternating which goes first."""
    server = PgServer(durable=True).start()
    try:
        trials = []
        for number in range(rounds):
            for replicas in (1, 2) if number % 2 == 0 else (2, 1):
                trials.append(trial(server.database(), workdir, replicas, runs, concurrency, f"r{number}-"))
        return trials
    finally:
        server.stop()


def verdict(trials: list[Trial], cores: int | None = None) -> list[str]:
    """The ratio, and whether this machine could show it: two replicas and the server need three free cores."""
    by_round = [trials[i : i + 2] for i in range(0, len(trials), 2)]
    ratios = []
    for pair in by_round:
        one = next(t for t in pair if t.replicas == 1)
        two = next(t for t in pair if t.replicas == 2)
        ratios.append(two.rate / one.rate)
    median = statistics.median(ratios)
    cores = cores or os.cpu_count() or 1
    load = max(t.load for t in trials)
    free = cores - load
    lines = [
        "  per round, 2 replicas / 1 replica: " + ", ".join(f"{r:.2f}x" for r in ratios),
        f"  median: {median:.2f}x (target >= {TARGET}x: {'met' if median >= TARGET else 'MISSED'})",
    ]
    if free < 3:
        lines.append(
            f"  !! this machine cannot show it: {cores} cores with a load average up to {load:.1f} before the"
            f" trials leaves about {max(free, 0):.1f} free, and two replicas plus the database need about 3."
            " The ratio above measures the machine's spare CPU, not Tandem."
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        url, share, concurrency, ready, go = argv[1:6]
        ids = json.loads(Path(share).read_text())
        print(json.dumps(asyncio.run(child(url, ids, int(concurrency), Path(ready), Path(go)))))
        return 0
    parser = argparse.ArgumentParser(prog="python -m bench.replicas", description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=200, help="runs per trial, three resumes each (default 200)")
    parser.add_argument("--concurrency", type=int, default=8, help="runs each replica drives at once (default 8)")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds of 1 and 2 replicas (default 2)")
    args = parser.parse_args(argv)
    if args.runs < 2 or args.concurrency < 1 or args.rounds < 1:
        parser.error("--runs must be at least 2, --concurrency and --rounds at least 1")
    with tempfile.TemporaryDirectory(prefix="tandem-bench-") as tmp:
        trials = run(args.runs, args.concurrency, Path(tmp), args.rounds)
    print(
        f"bench.replicas: {args.runs} runs x 3 resumes per trial, {args.concurrency} at once per replica,"
        f" {args.rounds} alternating rounds; {os.cpu_count()} cores; durable PostgreSQL on a local socket"
    )
    for t in trials:
        print(
            f"  {t.replicas} replica{'s' if t.replicas > 1 else ' '}  {t.resumes} resumes in {t.seconds:6.2f} s"
            f"  {t.rate:7.1f} resumes/s  replicas' CPU {t.cpu:6.2f} s ({t.cpu / t.seconds:.2f} cores busy)"
            f"  load before {t.load:.2f}"
        )
    for line in verdict(trials):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
