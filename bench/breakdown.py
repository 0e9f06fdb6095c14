"""Where a resume's time goes: bench.loop's workload, with the resume phase split into its parts.

    python -m bench.breakdown --runs 500

Starts N runs to their first anchor (untimed), then approves every anchor as ``bench.loop`` does and
adds up, over all resumes, the wall time spent in each part of the product's own code path:

- ``load``: reading the run (``Store.load``: one SELECT, the state's JSON validated into models);
- ``transition``: the pure machine (``agent.machine.transition``) and the rule look-ups it asks for;
- ``commit, durable`` / ``commit, not waiting``: ``Store.commit`` (the state's JSON, its events, its
  reviews and messages in one transaction), split by whether it waited for the disk (fsync);
- ``work``: the worker performing an effect (the bench's tools are async and do nothing; the result is written
  by the product's offline model, as in ``bench.loop``);
- ``rest``: everything else (the run's lock, audit lines, logging, scheduling on the event loop).

Each part's total is divided by the number of resumes, so the column adds up to the mean resume. The
figures are wall times on a shared machine: read them as shares, next to the load average printed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agent import machine
from agent.models import Approve, RunState
from agent.runtime import Runtime
from agent.runtime.work import Worker
from bench.loop import CountingStore, expect_run
from bench.workload import BRAIN_LABELS, EXPECTED_ANCHORS, POLICY, REQUESTER, REVIEWER, TASK, choose_brain, registry

PARTS = ("load", "transition", "commit, durable", "commit, not waiting", "work")


class Clock:
    """Wall time per part, only while ``on``."""

    def __init__(self) -> None:
        self.on = False
        self.spent = dict.fromkeys(PARTS, 0.0)
        self.calls = dict.fromkeys(PARTS, 0)

    def add(self, part: str, began: float) -> None:
        if self.on:
            self.spent[part] += time.perf_counter() - began
            self.calls[part] += 1


@contextmanager
def _timed(clock: Clock, store: CountingStore) -> Iterator[None]:
    """Wrap the parts' entry points for the block (bench-only instrumentation; the product is unchanged)."""
    originals: list[tuple[Any, str, Any]] = []

    def patch(owner: Any, name: str, make: Callable[[Any], Any]) -> None:
        original = getattr(owner, name)
        originals.append((owner, name, original))
        setattr(owner, name, make(original))

    def sync_part(part: str) -> Callable[[Any], Any]:
        def make(original: Any) -> Any:
            def timed(*args: Any, **kwargs: Any) -> Any:
                began = time.perf_counter()
                try:
                    return original(*args, **kwargs)
                finally:
                    clock.add(part, began)

            return timed

        return make

    def async_part(part: Callable[[dict[str, Any]], str]) -> Callable[[Any], Any]:
        def make(original: Any) -> Any:
            async def timed(*args: Any, **kwargs: Any) -> Any:
                began = time.perf_counter()
                try:
                    return await original(*args, **kwargs)
                finally:
                    clock.add(part(kwargs), began)

            return timed

        return make

    patch(machine, "transition", sync_part("transition"))
    patch(store, "load", async_part(lambda _: "load"))
    patch(
        store,
        "commit",
        async_part(lambda kwargs: "commit, durable" if kwargs.get("durable", True) else "commit, not waiting"),
    )
    patch(Worker, "perform", async_part(lambda _: "work"))
    try:
        yield
    finally:
        for owner, name, original in reversed(originals):
            if owner is store:
                delattr(owner, name)  # back to the class's method
            else:
                setattr(owner, name, original)


async def measure(n: int, workdir: Path) -> tuple[Clock, list[float], str]:
    clock = Clock()
    store = CountingStore(workdir / "breakdown.db")
    async with store:
        tools = registry()
        kind, brain, note = await choose_brain(tools)  # the product's brain, as bench.loop uses
        runtime = Runtime(store, brain, tools, config=POLICY)
        pending: list[RunState] = [await runtime.start(TASK, REQUESTER) for _ in range(n)]
        for state in pending:
            expect_run(state, 0)
        resumes: list[float] = []
        with _timed(clock, store):
            clock.on = True
            for number, _anchor in enumerate(EXPECTED_ANCHORS, start=1):
                for i, state in enumerate(pending):
                    review = state.pending
                    assert review is not None
                    began = time.perf_counter()
                    pending[i] = await runtime.decide(state.id, Approve(), REVIEWER, review_id=review.id)
                    resumes.append(time.perf_counter() - began)
                    expect_run(pending[i], number)
            clock.on = False
    return clock, resumes, f"{BRAIN_LABELS[kind]} ({note})"


def report(clock: Clock, resumes: list[float], load_before: float, brain: str) -> None:
    count = len(resumes)
    total = sum(resumes)
    print(f"Where a resume's time goes: {count} resumes ({len(EXPECTED_ANCHORS)} per run), bench.loop's workload")
    print(f"  brain: {brain}")
    print(f"  load average before: {load_before:.2f}, after: {os.getloadavg()[0]:.2f} (1 min; {os.cpu_count()} CPUs)")
    print(f"  {'part':24} {'per resume':>12} {'share':>8} {'calls/resume':>14}")
    accounted = 0.0
    for part in PARTS:
        spent = clock.spent[part]
        accounted += spent
        per = spent / count * 1000
        print(f"  {part:24} {per:9.3f} ms {spent / total:7.0%} {clock.calls[part] / count:14.2f}")
    rest = total - accounted
    print(f"  {'rest':24} {rest / count * 1000:9.3f} ms {rest / total:7.0%}")
    print(f"  {'mean resume':24} {total / count * 1000:9.3f} ms")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.breakdown", description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=500, help="N runs (default 500)")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="tandem-breakdown-") as workdir:
        clock, resumes, brain = asyncio.run(measure(max(1, args.runs), Path(workdir)))
    report(clock, resumes, load_before, brain)
    return 0


if __name__ == "__main__":
    sys.exit(main())
