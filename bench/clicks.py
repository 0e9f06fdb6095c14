"""Answers a person gives per run: where Tandem stops, before and after anchors adapted to risk.

``python -m bench.clicks`` plays short stories through the real runtime (:class:`~agent.runtime.Runtime`
on a SQLite file, the product's brain with the offline model, the demo tools on an in-memory ops world)
under two policies: **before**, the three-anchor policy Tandem started with (``[anchors] merge_gate =
false``, ``after_risky_step = "any_follows"``, ``read_only = "review"``: after the plan, before and after
every risky step, before the result, and a read-only plan reviewed), and **after**, the defaults. Each
story's people answer every review the way the story says: the first of its deciders the policy lets
approve it does, or says the story's correction once. Prints each story's answers side by side, then
checks the targets: the README's restart-and-check in at most 2 answers when bob (who may approve exec
steps) approves the plan, a read-only check in none, and a deploy under a quorum of 2 with exactly 2
approvals at its gate. Exits 1 when a run does not finish or a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agent.config import AnchorsRule, PolicyConfig, load_config
from agent.models import Approve, RunState
from agent.runtime import Runtime
from bench.demo import demo_runtime
from bench.results import BenchFailure
from bot.origin import SlackThread
from cli import platforms  # noqa: F401  (an entry point: registers every installed platform, as tandem does)

ALICE, BOB, DAVE = "U0ALICE", "U0BOB", "U0DAVE"
NAMES = {ALICE: "alice", BOB: "bob", DAVE: "dave"}
DEMO_POLICY = Path(__file__).resolve().parent.parent / "demo" / "policy.toml"
SHORT = {
    "after_plan": "plan",
    "before_risky_step": "gate",
    "after_risky_step": "outcome",
    "before_result": "result",
    "step_failed": "failed",
    "recovery": "recovery",
}


def demo_config() -> PolicyConfig:
    """The ``tandem dev`` demo policy: bob approves exec and deploy steps."""
    return load_config(DEMO_POLICY, {})


def quorum_config() -> PolicyConfig:
    """Deploys need two of bob and dave."""
    return PolicyConfig(approvers={"exec": [BOB], "deploy": [BOB, DAVE]}, quorum={"deploy": 2})


def _four_replicas(state: RunState) -> str | None:
    for step in state.plan:
        if step.tool == "scale_service" and step.status == "pending" and step.params.get("replicas") != 4:
            return "use 4 replicas"
    return None


@dataclass(frozen=True)
class Story:
    name: str
    task: str
    config: Callable[[], PolicyConfig]
    deciders: tuple[str, ...]  # who answers a review: the first of them the policy lets approve it
    correction: Callable[[RunState], str | None] = lambda _: None  # said (once per review kind) where it applies


STORIES = (
    Story("restart and check (bob approves the plan)", "restart payments and check errors after", demo_config, (BOB,)),
    Story(
        "restart and check (alice approves the plan)",
        "restart payments and check errors after",
        demo_config,
        (ALICE, BOB),
    ),
    Story("read-only check", "check checkout health", demo_config, (ALICE, BOB)),
    Story("deploy, quorum 2", "deploy payments 2.5.0", quorum_config, (ALICE, BOB, DAVE)),
    Story("scale with a correction", "scale payments to 2 replicas", demo_config, (ALICE, BOB), _four_replicas),
)


@dataclass
class Played:
    """One story under one policy: every answer, as ``(review kind, who, what)``."""

    answers: list[tuple[str, str, str]] = field(default_factory=list)
    status: str = ""

    def gate_approvals(self) -> int:
        return sum(1 for kind, _, what in self.answers if kind == "gate" and what == "✓")

    def line(self) -> str:
        shown = " · ".join(f"{kind} {what}{NAMES.get(who, who)}" for kind, who, what in self.answers)
        return f"{len(self.answers)}: {shown or '(none)'} → {self.status}"


async def _play(runtime: Runtime, story: Story) -> Played:
    where = SlackThread(channel_id="C0OPS", thread_ts=f"{time.time():.6f}")
    state = await runtime.start(story.task, ALICE, origin=where)
    played = Played()
    said: set[str] = set()
    for _ in range(20):
        if state.finished:
            played.status = state.status
            return played
        review = state.pending
        if review is None:
            raise BenchFailure(f"{story.name}: run {state.id} stopped at {state.phase} with nothing to review")
        kind = SHORT.get(review.anchor, review.anchor)
        correction = story.correction(state)
        if correction is not None and review.anchor not in said and review.anchor != "before_result":
            said.add(review.anchor)
            played.answers.append((kind, ALICE, "✎"))
            _, state = await runtime.say(state.id, correction, ALICE, review_id=review.id)
            continue
        done = {a.by for a in review.approvals}
        who = next(
            (
                p
                for p in story.deciders
                if p not in done and runtime.safety.check(state, review, p, Approve(), []) is None
            ),
            None,
        )
        if who is None:
            raise BenchFailure(f"{story.name}: nobody of the story may approve the {review.anchor} review")
        played.answers.append((kind, who, "✓"))
        state = await runtime.decide(state.id, Approve(), who, review_id=review.id)
    raise BenchFailure(f"{story.name}: run {state.id} did not finish in 20 reviews")


async def play(story: Story, *, before: bool, folder: Path) -> Played:
    """``story`` on a fresh database and world, under the seeds' policy (``before``) or the defaults."""
    config = story.config()
    if before:
        config = config.model_copy(
            update={"anchors": AnchorsRule(merge_gate=False, after_risky_step="any_follows", read_only="review")}
        )
    async with demo_runtime(folder / f"{STORIES.index(story)}-{'before' if before else 'after'}.db", config) as runtime:
        return await _play(runtime, story)


def misses(results: dict[str, tuple[Played, Played]]) -> list[str]:
    """The targets the defaults miss (empty: all met)."""
    out = []
    readme = results[STORIES[0].name][1]
    if len(readme.answers) > 2:
        out.append(f"restart and check took {len(readme.answers)} answers (target ≤ 2)")
    check = results[STORIES[2].name][1]
    if check.answers:
        out.append(f"the read-only check took {len(check.answers)} answers (target 0)")
    deploy = results[STORIES[3].name][1]
    if deploy.gate_approvals() != 2:
        out.append(f"the deploy's gate took {deploy.gate_approvals()} approvals (target exactly 2)")
    return out


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.clicks", description=__doc__.splitlines()[0])
    parser.parse_args(argv)
    results: dict[str, tuple[Played, Played]] = {}
    with tempfile.TemporaryDirectory(prefix="tandem-clicks-") as tmp:
        for story in STORIES:
            results[story.name] = (
                await play(story, before=True, folder=Path(tmp)),
                await play(story, before=False, folder=Path(tmp)),
            )
    print("answers a person gives per run (✓ approve, ✎ correction), before → after")
    for story in STORIES:
        old, new = results[story.name]
        print(f"\n{story.name}: {len(old.answers)} → {len(new.answers)}")
        print(f"  before  {old.line()}")
        print(f"  after   {new.line()}")
    missed = misses(results)
    print("\ntargets: " + ("met" if not missed else "MISSED: " + "; ".join(missed)))
    return 1 if missed else 0


if __name__ == "__main__":
    try:
        sys.exit(asyncio.run(main()))
    except BenchFailure as exc:
        print(f"bench.clicks failed: {exc}", file=sys.stderr)
        sys.exit(1)
