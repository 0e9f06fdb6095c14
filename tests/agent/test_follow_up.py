"""A reply in the thread of a finished run, through the use case every channel calls (real SQLite)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from agent.config import PolicyConfig
from agent.follow_up import Unchanged, follow_up
from agent.models import Policy, ProposedStep, Reading, RunState, Step, TakeoverReading
from agent.ports import ClassifyContext
from agent.runtime import Runtime
from agent.tools import ToolRegistry
from agent.usecases import Applied, NotApplied, Refused, UseCases
from bot.origin import SlackThread
from storage.facade import AsyncStore
from tests.agent.service_tools import ALICE, BOB, CAROL, OPS, RAN, TOOLS

WHERE = SlackThread(channel_id="C0OPS", thread_ts="1.0")


class Brain:
    """Plans a peek first, then (a replan) a peek and a bounce; reads every reply as ``reading``."""

    def __init__(self, reading: Reading) -> None:
        self.reading = reading
        self.plans = 0
        self.classified: list[str] = []

    async def plan(self, task: str, tools: ToolRegistry, **_: Any) -> list[ProposedStep]:
        self.plans += 1
        steps = [("peek", {"service": "api"})] + ([("bounce", {"service": "api"})] if self.plans > 1 else [])
        return [ProposedStep(tool=n, params=p, reason="r", risk=tools.get(n).risk) for n, p in steps]

    async def revise_step(self, task: str, step: Step, tools: ToolRegistry, **_: Any) -> dict[str, Any]:
        return step.params

    async def summarize(self, task: str, steps: list[Step], notes: list[str]) -> str:
        return "; ".join(str(s.result) for s in steps)

    async def refine(self, task: str, output: str, feedback: str, steps: list[Step]) -> str:
        return f"refined: {output}"

    async def classify(self, text: str, context: ClassifyContext) -> Reading:
        assert context.anchor == "before_result", "a reply to a finished run is read as at its result"
        self.classified.append(text)
        return self.reading

    async def propose(self, instruction: str, task: str, steps: list[Step], tools: ToolRegistry) -> TakeoverReading:
        return TakeoverReading(kind="unclear")


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[AsyncStore]:
    RAN.clear()
    async with AsyncStore(tmp_path / "t.db") as s:
        yield s


async def _done(store: AsyncStore, reading: Reading, config: PolicyConfig | None = None) -> tuple[UseCases, RunState]:
    runtime = Runtime(store, Brain(reading), TOOLS, policy=Policy(), config=config or PolicyConfig())

    async def groups_of(user: str) -> Sequence[str]:
        return [OPS] if user == BOB else []

    uc = UseCases(runtime, store, groups_of)
    state = await runtime.start("peek at api", ALICE, origin=WHERE)
    assert state.status == "done" and state.pending is None and RAN == ["peek api"]
    return uc, state


def _brain(uc: UseCases) -> Brain:
    assert isinstance(uc.runtime.brain, Brain)
    return uc.runtime.brain


@pytest.mark.parametrize(
    ("reading", "rejecting", "told"),
    [
        (Reading(intent="approve", confidence=0.9), False, "is done, so that changes nothing"),
        (Reading(intent="approve", confidence=0.9), True, "A request for changes never approves"),
        (Reading(intent="cancel", confidence=0.9), False, "there is nothing to stop"),
        (Reading(intent="replan", confidence=0.2), False, "Not sure what you meant (best guess replan, 20% sure)"),
        (Reading(intent="replan", fallback=True, confidence=0.9), False, "Not sure what you meant"),
    ],
)
async def test_follow_up_that_is_no_sure_correction_changes_nothing_and_says_why(
    store: AsyncStore, reading: Reading, rejecting: bool, told: str
) -> None:
    uc, state = await _done(store, reading)
    outcome = await follow_up(uc, state.id, "hmm", ALICE, rejecting=rejecting)
    assert isinstance(outcome, Unchanged) and told in outcome.message
    after, _ = await store.load(state.id)
    assert after == state and RAN == ["peek api"]


async def test_follow_up_by_an_outsider_is_refused_before_anything_is_read_or_written(store: AsyncStore) -> None:
    uc, state = await _done(store, Reading(intent="replan", confidence=0.9))
    trail = await store.events(state.id)
    outcome = await follow_up(uc, state.id, "check auth instead", CAROL)
    assert isinstance(outcome, Refused) and "Only" in outcome.refusal.describe()
    assert _brain(uc).classified == [], "no model is asked for someone who may not steer the run"
    assert await store.events(state.id) == trail and (await store.load(state.id))[0] == state


async def test_follow_up_by_an_approver_reopens_the_run(store: AsyncStore) -> None:
    uc, state = await _done(
        store, Reading(intent="refine_output", confidence=0.9), PolicyConfig(approvers={"exec": [OPS]})
    )
    outcome = await follow_up(uc, state.id, "shorter", BOB)
    assert isinstance(outcome, Applied) and outcome.state.status == "done"
    assert outcome.state.output == "refined: api ok" and RAN == ["peek api"]
    reopened = [e for e in await store.events(state.id) if e.kind == "reopened"]
    assert [(e.actor, e.payload["decision"]["feedback"]) for e in reopened] == [(BOB, "shorter")]


async def test_reopened_run_whose_new_plan_is_risky_stops_at_its_reviews(store: AsyncStore) -> None:
    uc, state = await _done(store, Reading(intent="replan", confidence=0.9))
    outcome = await follow_up(uc, state.id, "also bounce it", ALICE)
    assert isinstance(outcome, Applied)
    assert outcome.state.status == "awaiting_review" and outcome.state.pending is not None
    assert outcome.state.pending.anchor == "after_plan"
    assert RAN == ["peek api"], "nothing ran before a person saw the risky plan"
    runs = await store.list_runs()
    assert [(r.id, r.status) for r in runs] == [(state.id, "awaiting_review")]


async def test_follow_up_on_an_unknown_run_is_not_applied(store: AsyncStore) -> None:
    uc, _ = await _done(store, Reading(intent="replan", confidence=0.9))
    assert isinstance(await follow_up(uc, "nope", "again", ALICE), NotApplied)
