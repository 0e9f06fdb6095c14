"""Collaboration metrics read from the audit trail of runs driven through the real runtime.

Runs go through :class:`agent.runtime.Runtime` on each storage backend (a real SQLite file;
see ``conftest.py``) with a scripted brain and a clock the test moves, so every figure a
person would read is known exactly.
"""

from __future__ import annotations

from typing import Any

import pytest

from agent.brain import LLMBrain
from agent.config import AnchorsRule, PolicyConfig, TimeoutRule
from agent.llm import LiteLLMModel
from agent.models import (
    Approve,
    AuditEvent,
    Correct,
    Finish,
    Instruct,
    Intent,
    PlannedStep,
    ProposedStep,
    Reading,
    RunState,
    Step,
    TakeoverReading,
)
from agent.models.metrics import AnchorLatency, Corrections, DayCount, MetricsQuery, ToolDecisions
from agent.ports import ClassifyContext, Store
from agent.runtime import Runtime
from agent.tools import Risk, ToolRegistry, tool
from bot.origin import SlackThread
from tests.fakes.openai_server import serve_openai
from tests.fakes.scripted import ScriptedModel

DAY = 86_400.0
DAY0 = 20_000 * DAY  # a UTC midnight (2024-10-04)
NOW = [DAY0]


def clock() -> float:
    return NOW[0]


def wait(seconds: float) -> None:
    NOW[0] += seconds


@tool(risk=Risk.READ)
def look(service: str) -> str:
    """Look at a service."""
    return f"{service} is fine"


@tool(risk=Risk.DEPLOY)
def ship(service: str, version: str) -> str:
    """Deploy a version."""
    return f"{service} now at {version}"


REGISTRY = ToolRegistry()
for fn in (look, ship):
    REGISTRY.add_function(fn)


class TimedBrain:
    """Always plans look + ship (each plan a new version: a replan that changes nothing is not counted);
    each piece of model work takes a known time on the test clock."""

    def __init__(self) -> None:
        self.readings: list[Reading] = []
        self.plans = 0

    async def plan(self, task: str, tools: ToolRegistry, **_: Any) -> list[ProposedStep]:
        wait(5)
        self.plans += 1
        steps = [("look", {"service": "api"}), ("ship", {"service": "api", "version": f"2.{self.plans}"})]
        return [ProposedStep(tool=n, params=p, reason="r", risk=tools.get(n).risk) for n, p in steps]

    async def revise_step(self, task: str, step: Step, tools: ToolRegistry, **_: Any) -> dict[str, Any]:
        wait(3)
        return {**step.params, "version": "9.9"}

    async def summarize(self, task: str, steps: list[Step], notes: list[str]) -> str:
        return "done"

    async def refine(self, task: str, output: str, feedback: str, steps: list[Step]) -> str:
        wait(2)
        return output.upper()

    async def classify(self, text: str, context: ClassifyContext) -> Reading:
        return self.readings.pop(0)

    async def propose(self, instruction: str, task: str, steps: list[Step], tools: ToolRegistry) -> TakeoverReading:
        return TakeoverReading(kind="step", step=PlannedStep(tool="look", params={"service": "auth"}))


@pytest.fixture(autouse=True)
def fresh_clock() -> None:
    NOW[0] = DAY0


def at_day(day: int, hour: int = 9) -> None:
    NOW[0] = DAY0 + day * DAY + hour * 3600


async def start(rt: Runtime, who: str, channel: str) -> RunState:
    """Where a run lives is said in this one place."""
    return await rt.start("ship api", who, origin=SlackThread(channel_id=channel, thread_ts=f"{NOW[0]}"))


async def approve(rt: Runtime, state: RunState, who: str, after: float, anchor: str) -> RunState:
    assert state.pending is not None and state.pending.anchor == anchor, state.pending
    wait(after)
    return await rt.decide(state.id, Approve(), who)


async def correct(
    rt: Runtime, state: RunState, who: str, after: float, intent: Intent, step: int | None = None
) -> RunState:
    wait(after)
    return await rt.decide(state.id, Correct(intent=intent, feedback="not like that", target_step=step), who)


async def a_week(store: Store) -> Runtime:
    """Seven runs over three days: straight approvals, a correction of each intent, a takeover,
    two deadlines (cancel, pause), free text and one "Not what I meant"."""
    brain = TimedBrain()
    config = PolicyConfig(
        timeouts={
            "after_plan": TimeoutRule(after=3600, strategy="cancel"),
            "before_result": TimeoutRule(after=3600, strategy="pause"),
        },
        anchors=AnchorsRule(merge_gate=False),  # the figures include waits and decisions at the gates themselves
    )
    rt = Runtime(store, brain, REGISTRY, config=config, clock=clock)

    at_day(0)  # A: straight approvals, the result approved in words (then "Not what I meant")
    a = await start(rt, "alice", "C1")
    a = await approve(rt, a, "alice", 60, "after_plan")
    a = await approve(rt, a, "alice", 120, "before_risky_step")
    assert a.pending is not None and a.pending.anchor == "before_result"
    answered = a.pending.id
    wait(30)
    brain.readings.append(Reading(intent="approve", reason="a yes", confidence=0.9))
    _, a = await rt.say(a.id, "looks good", "alice")
    assert a.status == "done"
    await rt.note_override(a.id, answered, "alice")

    b = await start(rt, "alice", "C1")  # B: a replan
    b = await correct(rt, b, "alice", 30, "replan")
    b = await approve(rt, b, "alice", 90, "after_plan")
    b = await approve(rt, b, "alice", 60, "before_risky_step")
    b = await approve(rt, b, "alice", 10, "before_result")
    assert b.status == "done"

    at_day(1)
    c = await start(rt, "bob", "C2")  # C: a step retried at the deploy gate
    c = await approve(rt, c, "bob", 45, "after_plan")
    c = await correct(rt, c, "bob", 200, "retry_step", 2)
    c = await approve(rt, c, "bob", 100, "before_risky_step")
    c = await approve(rt, c, "bob", 20, "before_result")
    assert c.status == "done" and c.step(2).params["version"] == "9.9"

    d = await start(rt, "bob", "C2")  # D: the output refined, asked in words
    d = await approve(rt, d, "bob", 10, "after_plan")
    d = await approve(rt, d, "bob", 30, "before_risky_step")
    wait(40)
    brain.readings.append(Reading(intent="refine_output", reason="presentation", confidence=0.9))
    _, d = await rt.say(d.id, "show it as a table", "bob")
    d = await approve(rt, d, "bob", 5, "before_result")
    assert d.status == "done" and d.output == "DONE"

    e = await start(rt, "alice", "C1")  # E: three replans, then a person takes over
    for _ in range(4):
        e = await correct(rt, e, "alice", 10, "replan")
    assert e.status == "human_takeover"
    wait(5)
    e = await rt.decide(e.id, Instruct(text="look at auth"), "alice")
    e = await approve(rt, e, "alice", 15, "takeover_step")
    e = await rt.decide(e.id, Finish(), "alice")
    assert e.status == "done"

    at_day(2)
    f = await start(rt, "carol", "C2")  # F: nobody looks at the plan; its deadline cancels
    g = await start(rt, "carol", "C2")  # G: nobody looks at the result; its deadline pauses
    g = await approve(rt, g, "carol", 20, "after_plan")
    g = await approve(rt, g, "carol", 25, "before_risky_step")
    wait(3601)
    assert await rt.tick() == 2
    assert (await store.load(f.id))[0].status == "cancelled"
    assert (await store.load(g.id))[0].pending is not None
    return rt


def window(days: int = 3, start_day: int = 0, filters: dict[str, str] | None = None) -> MetricsQuery:
    since = DAY0 + start_day * DAY
    return MetricsQuery.model_validate({"since": since, "until": since + days * DAY, **(filters or {})})


async def test_metrics_over_a_week_of_runs_give_the_figures_people_read(store: Store) -> None:
    await a_week(store)
    m = await store.metrics(window())
    assert m.runs == 7
    assert m.corrected_runs == 4 and m.correction_rate == pytest.approx(4 / 7)
    assert m.corrections == Corrections(replan=5, retry_step=1, refine_output=1)
    # E's fourth correction handed the run to a person: it was no retry
    assert m.retries == 6 and m.avg_retries == pytest.approx(6 / 7)
    assert m.takeovers == 1 and m.takeover_rate == pytest.approx(1 / 7)
    # replans take 5 s, a revision 3 s, a refinement 2 s: B 5, C 3, D 2, E 5 + 5 + 5
    assert m.correction_to_review == pytest.approx(25 / 6)
    assert m.approval_latency == [
        AnchorLatency(anchor="after_plan", approvals=5, p50=45, p90=90),
        AnchorLatency(anchor="before_result", approvals=4, p50=10, p90=30),
        AnchorLatency(anchor="before_risky_step", approvals=5, p50=60, p90=120),
        AnchorLatency(anchor="takeover_step", approvals=1, p50=15, p90=15),
    ]
    assert m.tools == [
        ToolDecisions(tool="look", approved=1, rejected=0, approval_rate=1.0, rejection_rate=0.0),
        ToolDecisions(tool="ship", approved=5, rejected=1, changed=1, approval_rate=5 / 6, rejection_rate=1 / 6),
    ]
    assert m.timeouts == {"cancel": 1, "reassign": 0, "use_default": 0, "pause": 1, "degrade": 0}
    assert (m.free_text_decisions, m.overrides, m.misread_rate) == (2, 1, 0.5)
    assert (m.model_calls, m.prompt_tokens, m.tokens_per_run) == (0, None, None)
    assert m.days == [
        DayCount(day="2024-10-04", runs=2, corrections=1, takeovers=0),
        DayCount(day="2024-10-05", runs=3, corrections=6, takeovers=1),
        DayCount(day="2024-10-06", runs=2, corrections=0, takeovers=0),
    ]


@pytest.mark.parametrize(
    ("filters", "runs", "corrected", "takeovers"),
    [
        ({"channel": "C1"}, 3, 2, 1),
        ({"channel": "C2"}, 4, 2, 0),
        ({"requester": "bob"}, 2, 2, 0),
        ({"tool": "ship"}, 5, 3, 0),
        ({"tool": "look"}, 6, 4, 1),
        ({"channel": "C9"}, 0, 0, 0),
    ],
)
async def test_metrics_filtered_count_only_the_matching_runs(
    store: Store, filters: dict[str, str], runs: int, corrected: int, takeovers: int
) -> None:
    await a_week(store)
    m = await store.metrics(window(filters=filters))
    assert (m.runs, m.corrected_runs, m.takeovers) == (runs, corrected, takeovers)
    assert m.correction_rate == (corrected / runs if runs else 0.0)


async def test_metrics_window_of_one_day_counts_the_runs_started_that_day(store: Store) -> None:
    await a_week(store)
    m = await store.metrics(window(days=1, start_day=1))
    assert (m.runs, m.corrected_runs, m.takeovers) == (3, 3, 1)
    assert [d.day for d in m.days] == ["2024-10-05"]
    before = await store.metrics(window().previous())
    assert before.runs == 0 and before.correction_rate == 0.0 and len(before.days) == 3


async def test_metrics_model_calls_per_run_count_every_request_including_repairs_and_readings(
    store: Store,
) -> None:
    plan = '{"steps": [{"tool": "look", "params": {"service": "api"}, "reason": "see"}]}'
    summary = '{"text": "api is fine"}'
    model = ScriptedModel(plan, summary, "no json here", plan, summary)
    rt = Runtime(store, LLMBrain(model), REGISTRY, clock=clock)
    one = await start(rt, "alice", "C1")
    two = await start(rt, "alice", "C1")
    assert one.status == two.status == "done" and model.remaining == 0
    m = await store.metrics(window())
    # one: plan, summary; two: plan, its repair, summary
    assert (m.model_calls, m.model_calls_per_run) == (5, 2.5)
    assert (m.prompt_tokens, m.completion_tokens, m.tokens_per_run) == (None, None, None)


async def test_metrics_tokens_per_run_are_what_litellm_reported(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    async with serve_openai() as server:
        server.reply(
            '{"steps": [{"tool": "look", "params": {"service": "api"}, "reason": "see"}]}',
            '{"text": "api is fine"}',
        )
        model = LiteLLMModel("openai/test-model", api_base=server.base_url, timeout=5, retries=0)
        rt = Runtime(store, LLMBrain(model), REGISTRY, clock=clock)
        state = await start(rt, "alice", "C1")
    assert state.status == "done", "a read-only run is delivered without a result review"
    m = await store.metrics(window())
    prompt = sum(p for p, _ in server.reported)
    completion = sum(c for _, c in server.reported)
    assert len(server.reported) == 2 and prompt > 0 and completion > 0
    assert (m.model_calls, m.prompt_tokens, m.completion_tokens) == (2, prompt, completion)
    assert m.tokens_per_run == prompt + completion


async def test_metrics_count_a_correction_that_reopened_a_done_run(store: Store) -> None:
    plan = '{"steps": [{"tool": "look", "params": {"service": "api"}, "reason": "see"}]}'
    model = ScriptedModel(plan, '{"text": "api is fine"}', '{"text": "shorter: api fine"}')
    rt = Runtime(store, LLMBrain(model), REGISTRY, clock=clock)
    done = await start(rt, "alice", "C1")
    wait(60)
    again = await rt.reopen(done.id, Correct(intent="refine_output", feedback="shorter"), "alice")
    assert again.status == "done" and again.output == "shorter: api fine"
    m = await store.metrics(window())
    assert (m.runs, m.corrected_runs, m.corrections) == (1, 1, Corrections(refine_output=1))
    assert m.retries == 1 and m.takeovers == 0


def test_metrics_query_that_ends_before_it_starts_is_refused() -> None:
    with pytest.raises(ValueError, match="the window must end after it starts"):
        MetricsQuery(since=DAY0, until=DAY0)


async def test_metrics_count_each_persons_latest_vote_on_a_result(store: Store) -> None:
    rt = Runtime(store, TimedBrain(), REGISTRY, clock=clock)
    run = await start(rt, "alice", "C1")
    other = await start(rt, "bob", "C1")

    def vote(who: str, value: str) -> AuditEvent:
        return AuditEvent(at=clock(), actor=who, kind="result_feedback", payload={"vote": value})

    # alice changes her mind (down, then up); bob votes down on one run and up on the other
    await store.append_events(run.id, [vote("U0ALICE", "down"), vote("U0ALICE", "up"), vote("U0BOB", "down")])
    await store.append_events(other.id, [vote("U0BOB", "up")])
    m = await store.metrics(window())
    assert (m.results_liked, m.results_disliked) == (2, 1)
