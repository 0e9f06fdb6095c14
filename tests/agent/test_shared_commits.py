"""One durable commit per resume where it is safe: the transitions before a person is told anything,
or before a step at or above write risk starts, commit without waiting for the disk."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agent.config import AnchorsRule, PolicyConfig
from agent.models import (
    Approve,
    AuditEvent,
    Outbound,
    PlannedStep,
    ProposedStep,
    Reading,
    RunState,
    Step,
    TakeoverReading,
)
from agent.ports import Change, ClassifyContext
from agent.runtime import Runtime
from agent.tools import Risk, ToolRegistry, tool
from bot.origin import SlackThread
from storage.facade import AsyncStore

WHERE = SlackThread(channel_id="C1", thread_ts="1.0")
PLAN = [("peek", {"service": "api"}), ("peek", {"service": "db"}), ("push", {"service": "api"})]


@dataclass
class Commit:
    durable: bool
    phase: str
    messages: list[str]


@dataclass
class Log:
    """What happened, in order: commits, observers told, tools started."""

    entries: list[Commit | str] = field(default_factory=list)

    def commits(self) -> list[Commit]:
        return [e for e in self.entries if isinstance(e, Commit)]


LOG = Log()


@tool(risk=Risk.READ)
def peek(service: str) -> str:
    """Look at a service."""
    LOG.entries.append(f"tool peek {service}")
    return f"{service} is fine"


@tool(risk=Risk.WRITE)
def push(service: str) -> str:
    """Change a service."""
    LOG.entries.append(f"tool push {service}")
    return f"{service} changed"


REGISTRY = ToolRegistry()
for fn in (peek, push):
    REGISTRY.add_function(fn)


class Brain:
    async def plan(self, task: str, tools: ToolRegistry, **_: Any) -> list[ProposedStep]:
        return [
            ProposedStep(tool=name, params=tools.get(name).validate(p), reason="r", risk=tools.get(name).risk)
            for name, p in PLAN
        ]

    async def revise_step(self, task: str, step: Step, tools: ToolRegistry, **_: Any) -> dict[str, Any]:
        return step.params

    async def summarize(self, task: str, steps: list[Step], notes: list[str]) -> str:
        LOG.entries.append("model summarize")
        return "all fine"

    async def refine(self, task: str, output: str, feedback: str, steps: list[Step]) -> str:
        return output

    async def classify(self, text: str, context: ClassifyContext) -> Reading:
        return Reading(intent="approve", reason="yes", confidence=0.9)

    async def propose(self, instruction: str, task: str, steps: list[Step], tools: ToolRegistry) -> TakeoverReading:
        return TakeoverReading(kind="step", step=PlannedStep(tool="peek", params={"service": "api"}))


class RecordingStore(AsyncStore):
    async def commit(
        self,
        state: RunState,
        version: int,
        events: list[AuditEvent],
        *,
        outbox: Outbound | None = None,
        durable: bool = True,
        **writes: Any,
    ) -> int:
        version = await super().commit(state, version, events, outbox=outbox, durable=durable, **writes)
        kinds: list[str] = [m.kind for m in outbox.messages] if outbox is not None else []
        LOG.entries.append(Commit(durable, state.phase, kinds))
        return version


class Told:
    async def on_change(self, change: Change) -> None:
        LOG.entries.append(f"told {change.event.kind if change.event else 'start'}")


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[RecordingStore]:
    LOG.entries.clear()
    recording = RecordingStore(tmp_path / "t.db")
    async with recording:
        yield recording


async def paused_at_plan(store: RecordingStore, *, lazy: bool = True) -> tuple[Runtime, RunState]:
    apart = PolicyConfig(anchors=AnchorsRule(merge_gate=False))  # the write step asks at its own gate
    runtime = Runtime(store, Brain(), REGISTRY, observers=[Told()], config=apart)
    runtime.lazy_commits = lazy
    state = await runtime.start("look then change api", "U1", origin=WHERE)
    assert state.pending is not None and state.pending.anchor == "after_plan"
    LOG.entries.clear()
    return runtime, state


async def test_resume_through_read_steps_to_a_gate_makes_one_durable_commit(store: RecordingStore) -> None:
    runtime, state = await paused_at_plan(store)
    for row in await store.due_deliveries("slack", 1e12, 60):  # the plan review and its card went out
        assert (await store.claim_delivery_row(row.id, 0.0, 60)).claimed
        await store.delivered(row.id, 0.0)
    state = await runtime.decide(state.id, Approve(), "U1")
    assert state.pending is not None and state.pending.anchor == "before_risky_step"
    commits = LOG.commits()
    # the decision's commit does not wait for the disk; the first read step's result (a step safe to do
    # again, leading to another) is written with the second's, which waits for the disk before the gate
    assert [c.durable for c in commits] == [False, True]
    assert [c.phase for c in commits] == ["executing", "awaiting_review"]
    # the commit not on disk writes its messages held (a crash loses none); the durable one gives
    # them out before its own, the card once and last
    assert [c.messages for c in commits] == [["decided", "card"], ["review", "card"]]
    due = await store.due_deliveries("slack", 1e12, 60)
    assert [d.message.kind for d in due if d.run_id == state.id] == ["decided", "review", "card"]
    told = [e for e in LOG.entries if isinstance(e, str) and e.startswith("told")]
    assert told == ["told decided", "told step_finished", "told step_finished"]
    assert LOG.entries.index("told decided") > LOG.entries.index(commits[1]), "nobody is told before the disk has it"
    finished = [e.payload for e in await store.events(state.id) if e.kind == "step_finished"]
    assert [p.get("number") for p in finished] == [1, 2], "both steps' results are in the record, in order"


async def test_resume_into_a_write_step_commits_the_decision_durably_before_the_step(store: RecordingStore) -> None:
    runtime, state = await paused_at_plan(store)
    state = await runtime.decide(state.id, Approve(), "U1")
    assert state.pending is not None
    LOG.entries.clear()
    state = await runtime.decide(state.id, Approve(), "U1")
    assert state.pending is not None and state.pending.anchor == "before_result"
    first = LOG.entries[0]
    assert isinstance(first, Commit) and first.durable and first.messages == ["decided", "card"]
    assert LOG.entries[1:3] == ["told decided", "tool push api"]
    # the step's result leads to a model call, slow and paid for: its commit waits for the disk
    # and its card goes out before the call, as the review's does after it
    assert [c.durable for c in LOG.commits()] == [True, True, True]
    assert LOG.commits()[-1].messages == ["review", "card"]


class LocalBrain(Brain):
    local = True  # its model answers in this process, at once and at no cost (as the offline model does)


async def test_write_steps_result_before_a_local_models_summary_is_on_disk_with_the_review(
    store: RecordingStore,
) -> None:
    apart = PolicyConfig(anchors=AnchorsRule(merge_gate=False))
    runtime = Runtime(store, LocalBrain(), REGISTRY, observers=[Told()], config=apart)
    state = await runtime.start("look then change api", "U1", origin=WHERE)
    state = await runtime.decide(state.id, Approve(), "U1")
    assert state.pending is not None and state.pending.anchor == "before_risky_step"
    LOG.entries.clear()
    state = await runtime.decide(state.id, Approve(), "U1")
    assert state.pending is not None and state.pending.anchor == "before_result"
    assert LOG.entries.count("tool push api") == 1
    # the write step still starts only once the decision is on disk; its result, leading only to the
    # result written by a local model, waits for the review's commit, which waits for the disk
    assert [c.durable for c in LOG.commits()] == [True, False, True]
    assert LOG.entries.index("tool push api") > LOG.entries.index(LOG.commits()[0])
    told = LOG.entries.index("told step_finished")
    assert told > LOG.entries.index(LOG.commits()[2]), "nobody hears of the step's result before the disk has it"
    due = await store.due_deliveries("slack", 1e12, 60)
    kinds = [d.message.kind for d in due if d.run_id == state.id]
    assert "review" in kinds and kinds.count("card") == 1, "the review and the card (once) go out"
    finished = [e.payload for e in await store.events(state.id) if e.kind == "step_finished"]
    assert [p.get("number") for p in finished] == [1, 2, 3], "the write step's result is in the record"


@tool(risk=Risk.READ)
def broken(service: str) -> str:
    """Look at a service, and fail."""
    LOG.entries.append(f"tool broken {service}")
    raise RuntimeError(f"{service} does not answer")


FAILING = ToolRegistry()
for fn in (peek, broken):
    FAILING.add_function(fn)


class FailingLastBrain(LocalBrain):
    async def plan(self, task: str, tools: ToolRegistry, **_: Any) -> list[ProposedStep]:
        calls = [("peek", {"service": "api"}), ("broken", {"service": "db"})]
        return [
            ProposedStep(tool=name, params=tools.get(name).validate(p), reason="r", risk=tools.get(name).risk)
            for name, p in calls
        ]


async def test_a_decision_leading_only_to_a_local_models_result_is_told_once_the_result_is_on_disk(
    store: RecordingStore,
) -> None:
    runtime = Runtime(store, FailingLastBrain(), FAILING, observers=[Told()])
    state = await runtime.start("look at api and db", "U1", origin=WHERE)
    assert state.pending is not None and state.pending.anchor == "step_failed"
    LOG.entries.clear()
    state = await runtime.decide(state.id, Approve(), "U1")  # carry on without the failed step
    assert state.phase == "done"
    # the decision's only work is the result a local model writes: its commit does not wait for the disk,
    # and writes its messages held; the result's commit waits for it and gives them out
    commits = LOG.commits()
    assert [c.durable for c in commits] == [False, True]
    assert [c.messages for c in commits] == [["decided", "card"], ["finished", "card"]]
    assert LOG.entries.index("told decided") > LOG.entries.index(commits[1]), "nobody is told before the disk has it"
    due = await store.due_deliveries("slack", 1e12, 60)
    kinds = [d.message.kind for d in due if d.run_id == state.id]
    assert "decided" in kinds and "finished" in kinds and kinds.index("decided") < kinds.index("finished")
    kinds_recorded = [e.kind for e in await store.events(state.id)]
    assert kinds_recorded.index("decided") < kinds_recorded.index("output_ready"), "the decision is in the record"


def test_only_a_model_answering_in_this_process_counts_as_local() -> None:
    from agent.brain import LLMBrain
    from agent.llm import LiteLLMModel
    from agent.offline import OfflineModel

    assert LLMBrain(OfflineModel()).local is True
    assert LLMBrain(LiteLLMModel("openai/gpt-4o-mini")).local is False


async def test_resume_with_lazy_commits_off_waits_for_disk_on_every_commit(store: RecordingStore) -> None:
    runtime, state = await paused_at_plan(store, lazy=False)
    await runtime.decide(state.id, Approve(), "U1")
    assert [c.durable for c in LOG.commits()] == [True, True, True]
    assert [c.messages for c in LOG.commits()] == [["decided", "card"], ["card"], ["review", "card"]]


# --- a read step's result written with the next one's ---------------------------------------------------------


@dataclass
class Gate:
    """``slow_peek`` says it started, then waits to be let go (made afresh on each test's loop)."""

    started: asyncio.Event = field(default_factory=asyncio.Event)
    go: asyncio.Event = field(default_factory=asyncio.Event)


GATE: list[Gate] = []


@tool(risk=Risk.READ)
async def slow_peek(service: str) -> str:
    """Look at a service, slowly."""
    LOG.entries.append(f"tool slow_peek {service}")
    GATE[-1].started.set()
    await GATE[-1].go.wait()
    return f"{service} is fine"


SLOW_REGISTRY = ToolRegistry()
for fn in (peek, push, slow_peek):
    SLOW_REGISTRY.add_function(fn)


class Planned(Brain):
    def __init__(self, steps: list[tuple[str, dict[str, Any]]]) -> None:
        self.steps = steps

    async def plan(self, task: str, tools: ToolRegistry, **_: Any) -> list[ProposedStep]:
        return [
            ProposedStep(tool=name, params=tools.get(name).validate(p), reason="r", risk=tools.get(name).risk)
            for name, p in self.steps
        ]


async def planned(
    store: RecordingStore, steps: list[tuple[str, dict[str, Any]]], **kw: Any
) -> tuple[Runtime, RunState]:
    GATE[:] = [Gate()]
    apart = PolicyConfig(anchors=AnchorsRule(merge_gate=False))
    runtime = Runtime(store, Planned(steps), SLOW_REGISTRY, observers=[Told()], config=apart, **kw)
    state = await runtime.start("look then change api", "U1", origin=WHERE)
    assert state.pending is not None and state.pending.anchor == "after_plan"
    LOG.entries.clear()
    return runtime, state


def step_results(events: list[AuditEvent]) -> list[int]:
    return [int(e.payload["number"]) for e in events if e.kind == "step_finished"]


async def test_a_write_steps_result_is_written_before_the_read_step_after_it_starts(store: RecordingStore) -> None:
    runtime, state = await planned(store, [("push", {"service": "api"}), ("peek", {"service": "db"})])
    state = await runtime.decide(state.id, Approve(), "U1")
    assert state.pending is not None and state.pending.anchor == "before_risky_step"
    LOG.entries.clear()
    await runtime.decide(state.id, Approve(), "U1")
    pushed, peeked = LOG.entries.index("tool push api"), LOG.entries.index("tool peek db")
    between = [e for e in LOG.entries[pushed:peeked] if isinstance(e, Commit)]
    assert len(between) == 1 and between[0].phase == "executing", "the write step's result is on file first"


async def test_a_run_cancelled_while_its_next_read_step_runs_keeps_the_first_ones_result(
    store: RecordingStore,
) -> None:
    runtime, state = await planned(
        store, [("peek", {"service": "api"}), ("slow_peek", {"service": "db"}), ("push", {"service": "api"})]
    )
    deciding = asyncio.ensure_future(runtime.decide(state.id, Approve(), "U1"))
    await asyncio.wait_for(GATE[-1].started.wait(), 10)
    stored, _ = await store.load(state.id)
    assert stored.step(1).status != "done", "the first step's result waits for the next commit"
    cancelled = await runtime.cancel(state.id, "U1", "enough")
    assert cancelled.status == "cancelled"
    GATE[-1].go.set()
    final = await asyncio.wait_for(deciding, 10)
    assert final.status == "cancelled"
    events = await store.events(state.id)
    assert step_results(events) == [1], "the first step ran: the record says so though its commit never came"


async def test_a_crash_while_the_next_read_step_runs_does_the_first_again_then_goes_on(store: RecordingStore) -> None:
    now = [1_000.0]
    runtime, state = await planned(
        store,
        [("peek", {"service": "api"}), ("slow_peek", {"service": "db"}), ("push", {"service": "api"})],
        clock=lambda: now[0],
    )
    deciding = asyncio.ensure_future(runtime.decide(state.id, Approve(), "U1"))
    await asyncio.wait_for(GATE[-1].started.wait(), 10)
    deciding.cancel()  # the process dies while the second step runs
    with pytest.raises(asyncio.CancelledError):
        await deciding
    LOG.entries.clear()
    GATE[-1].go.set()
    now[0] += 3600  # its lease ran out
    again = Runtime(
        store,
        Planned([]),
        SLOW_REGISTRY,
        config=PolicyConfig(anchors=AnchorsRule(merge_gate=False)),
        clock=lambda: now[0],
    )
    recovered = await again.recover(state.id)
    assert recovered.pending is not None and recovered.pending.anchor == "before_risky_step"
    tools = [e for e in LOG.entries if isinstance(e, str) and e.startswith("tool")]
    assert tools == ["tool peek api", "tool slow_peek db"], "the first step, safe to repeat, is done again"
    assert step_results(await store.events(state.id)) == [1, 2]
