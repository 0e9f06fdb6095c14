"""Corrections needed per run, with lessons on and off: does today's correction prevent tomorrow's?

``python -m bench.lessons`` replays sequences of similar tasks through the real runtime
(:class:`~agent.runtime.Runtime` on a SQLite file, the product's brain with the offline
model, the demo tools on an in-memory ops world). A scripted reviewer answers every review
the way one team would: it corrects a plan or a step that breaks its rule, with the same
words every time, and approves everything else. Each sequence runs twice on a fresh
database: with lessons (the default policy) and without (``[lessons] enabled = false``).
Prints the corrections each run needed, and the reduction from the second run on; the
target is at least 50 %. Exits 1 when a run does not finish.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agent.config import LessonsRule, PolicyConfig
from agent.models import Approve, Cancel, RunState, Step
from agent.runtime import Runtime
from bench.demo import demo_runtime
from bench.results import BenchFailure
from bot.origin import SlackThread

REVIEWER = "U0ALICE"
MAX_CORRECTIONS = 4  # a reviewer gives up after this many in one run (the run is cancelled)
TARGET = 0.5


@dataclass(frozen=True)
class Scenario:
    """Similar tasks, and the team's rule: ``wrong`` says what is wrong at a review (None: nothing), in the
    words the reviewer always uses."""

    name: str
    tasks: tuple[str, ...]
    wrong: Callable[[RunState], str | None]


def _logs_first(state: RunState) -> str | None:
    """Every restart is preceded by reading that service's logs."""
    if state.pending is None or state.pending.anchor != "after_plan":
        return None
    steps = state.plan
    for i, step in enumerate(steps):
        if step.tool == "restart_service":
            service = step.params.get("service")
            if not any(s.tool == "read_logs" and s.params.get("service") == service for s in steps[:i]):
                return "check the logs first"
    return None


def _four_replicas(state: RunState) -> str | None:
    """payments always runs 4 replicas (said where the scale is first shown: the plan, else its gate)."""
    review = state.pending
    if review is None or review.anchor not in ("after_plan", "before_risky_step"):
        return None
    steps: list[Step] = [state.step(review.step)] if review.step is not None else state.plan
    for step in steps:
        service, replicas = step.params.get("service"), step.params.get("replicas")
        if step.tool == "scale_service" and service == "payments" and replicas != 4:
            return "use 4 replicas"
    return None


def _as_table(state: RunState) -> str | None:
    """Results come as a table (a presentation wish: lessons feed planning, not the write-up)."""
    if state.pending is None or state.pending.anchor != "before_result":
        return None
    return None if "|" in (state.output or "") else "show it as a table"


def _read_first_then_table(state: RunState) -> str | None:
    """Both rules in one run: the plan reads the logs before the restart, and the result is a table."""
    return _logs_first(state) or _as_table(state)


SCENARIOS = (
    Scenario(
        "restart: read the logs first",
        (
            "restart payments",
            "restart checkout",
            "restart search",
            "please restart payments",
            "restart the checkout service",
            "restart search now",
        ),
        _logs_first,
    ),
    Scenario(
        "scale: payments runs 4 replicas",
        (
            "scale payments to 2 replicas",
            "scale payments to 2 replicas for the sale",
            "scale payments to 2 replicas tonight",
            "scale payments to 2 replicas again",
            "scale payments to 2 replicas before noon",
            "scale payments to 2 replicas please",
        ),
        _four_replicas,
    ),
    Scenario(
        "result: as a table",
        (
            "check payments",
            "check checkout",
            "check search",
            "check payments again",
            "check the checkout service",
            "check search now",
        ),
        _as_table,
    ),
    Scenario(
        # a plan correction and a presentation wish in the same run: both are kept, neither replaces the other
        "restart and read: logs first, then a table",
        (
            "restart payments and read its logs",
            "restart checkout and read its logs",
            "restart search and read its logs",
            "please restart payments and read its logs",
            "restart the checkout service and read its logs",
            "restart search now and read its logs",
        ),
        _read_first_then_table,
    ),
)


async def _drive(runtime: Runtime, task: str, wrong: Callable[[RunState], str | None]) -> int:
    """One run from start to finish under the scripted reviewer; the corrections it needed."""
    where = SlackThread(channel_id="C0OPS", thread_ts=f"{time.time():.6f}")
    state = await runtime.start(task, REVIEWER, origin=where)
    corrections = 0
    for _ in range(40):
        if state.finished:
            return corrections
        review = state.pending
        if review is None:
            raise BenchFailure(f"run {state.id} ({task!r}) stopped at {state.phase} with nothing to review")
        said = wrong(state)
        if said is not None and corrections < MAX_CORRECTIONS and review.anchor != "takeover":
            corrections += 1
            _, state = await runtime.say(state.id, said, REVIEWER, review_id=review.id)
        elif review.anchor == "takeover" or corrections >= MAX_CORRECTIONS:
            state = await runtime.decide(state.id, Cancel(reason="gave up"), REVIEWER, review_id=review.id)
        else:
            state = await runtime.decide(state.id, Approve(), REVIEWER, review_id=review.id)
    raise BenchFailure(f"run {state.id} ({task!r}) did not finish in 40 reviews")


async def replay(scenario: Scenario, *, lessons: bool, folder: Path) -> list[int]:
    """Corrections per run of ``scenario`` on a fresh database, lessons on or off."""
    config = PolicyConfig(lessons=LessonsRule(enabled=lessons))
    path = folder / f"{scenario.name.split(':')[0]}-{'on' if lessons else 'off'}.db"
    async with demo_runtime(path, config) as runtime:
        return [await _drive(runtime, task, scenario.wrong) for task in scenario.tasks]


def reduction(on: list[int], off: list[int]) -> float:
    """How many fewer corrections runs 2.. needed with lessons than without (1.0: none needed)."""
    later_off, later_on = sum(off[1:]), sum(on[1:])
    return 1.0 - later_on / later_off if later_off else 0.0


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.lessons", description=__doc__.splitlines()[0])
    parser.parse_args(argv)
    total_on: list[int] = []
    total_off: list[int] = []
    with tempfile.TemporaryDirectory(prefix="tandem-lessons-") as tmp:
        for scenario in SCENARIOS:
            on = await replay(scenario, lessons=True, folder=Path(tmp))
            off = await replay(scenario, lessons=False, folder=Path(tmp))
            total_on += on[1:]
            total_off += off[1:]
            print(f"\n{scenario.name}")
            print(f"  {'run':>3}  {'task':<48} {'lessons off':>11} {'lessons on':>10}")
            for i, (task, a, b) in enumerate(zip(scenario.tasks, off, on, strict=True), start=1):
                print(f"  {i:>3}  {task:<48} {a:>11} {b:>10}")
            print(
                f"  runs 2-{len(on)}: {sum(off[1:])} corrections without lessons, {sum(on[1:])} with "
                f"({reduction(on, off):.0%} fewer)"
            )
    overall = 1.0 - sum(total_on) / sum(total_off) if sum(total_off) else 0.0
    verdict = "meets" if overall >= TARGET else "misses"
    print(
        f"\nfrom the second run on: {sum(total_off)} corrections without lessons, {sum(total_on)} with: "
        f"{overall:.0%} fewer ({verdict} the {TARGET:.0%} target)"
    )
    return 0


if __name__ == "__main__":
    try:
        sys.exit(asyncio.run(main()))
    except BenchFailure as exc:
        print(f"bench.lessons failed: {exc}", file=sys.stderr)
        sys.exit(1)
