"""human.ask from tools: pause, answer, resume; chained questions; validation; timeouts."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from agent import human
from agent.brain import LLMBrain
from agent.config import PolicyConfig, TimeoutRule
from agent.errors import InvalidDecision, NoPendingReview, ToolError
from agent.models import Answer, Approve, Cancel
from agent.offline import OfflineModel
from agent.runtime import Runtime
from agent.tools import load_tools
from storage.facade import AsyncStore

NOW = [1_000_000.0]


def clock() -> float:
    return NOW[0]


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[AsyncStore]:
    NOW[0] = 1_000_000.0
    async with AsyncStore(tmp_path / "h.db") as s:
        yield s


def runtime(store: AsyncStore, **kw: Any) -> Runtime:
    tools = load_tools(["tests.agent.handoff_tools"])
    return Runtime(store, LLMBrain(OfflineModel()), tools, clock=clock, **kw)


async def to_question(rt: Runtime, task: str = "move service payments") -> str:
    state = await rt.start(task, "U1")
    while state.pending is not None and state.pending.anchor != "handoff":
        state = await rt.decide(state.id, Approve(), "U1")
    assert state.pending is not None and state.pending.handoff is not None
    return state.id


async def test_tool_question_pauses_the_run_and_the_answer_resumes_it(store: AsyncStore) -> None:
    rt = runtime(store)
    run_id = await to_question(rt)
    state, _ = await store.load(run_id)
    assert state.status == "awaiting_review" and state.plan[0].status == "waiting"
    assert state.pending is not None and state.pending.handoff is not None
    assert state.pending.handoff.options == ["eu-west-1", "us-east-1", "other"]
    state = await rt.decide(run_id, Answer(value="eu-west-1"), "U1")
    assert state.plan[0].result == "payments moved to eu-west-1"
    assert state.plan[0].answers == ["eu-west-1"]


async def test_chained_questions_other_then_text(store: AsyncStore) -> None:
    rt = runtime(store)
    run_id = await to_question(rt)
    state = await rt.decide(run_id, Answer(value="other"), "U1")
    assert state.pending is not None and state.pending.handoff is not None
    assert state.pending.handoff.prompt == "Type the region" and state.pending.handoff.call == 1
    state = await rt.decide(run_id, Answer(value="ap-south-1"), "U1")
    assert state.plan[0].result == "payments moved to ap-south-1"
    assert state.executed == 1, "a step that asked twice still counts once"


@pytest.mark.parametrize(
    ("answers", "message"),
    [
        (["mars-1"], "not one of the options"),
        (["other", "x" * 21], "the limit is 20"),
        (["other", "   "], "empty"),
    ],
)
async def test_invalid_answer_is_refused_and_the_question_stays_open(
    store: AsyncStore, answers: list[str], message: str
) -> None:
    rt = runtime(store)
    run_id = await to_question(rt)
    for value in answers[:-1]:
        await rt.decide(run_id, Answer(value=value), "U1")
    before = await store.load(run_id)
    with pytest.raises(InvalidDecision, match=message):
        await rt.decide(run_id, Answer(value=answers[-1]), "U1")
    assert await store.load(run_id) == before


async def test_unknown_handoff_id_is_refused(store: AsyncStore) -> None:
    rt = runtime(store)
    run_id = await to_question(rt)
    with pytest.raises(NoPendingReview, match="Unknown review"):
        await rt.decide(run_id, Answer(value="eu-west-1"), "U1", review_id="nope")


async def test_approving_a_question_is_not_an_answer(store: AsyncStore) -> None:
    rt = runtime(store)
    run_id = await to_question(rt)
    with pytest.raises(InvalidDecision, match="answer it"):
        await rt.decide(run_id, Approve(), "U1")


async def test_ask_outside_a_tool_run_is_a_clear_error() -> None:
    with pytest.raises(ToolError, match="only works inside a tool"):
        await human.ask("hello?")


async def test_choice_without_options_and_bad_default_are_refused() -> None:
    with human.replay([]), pytest.raises(ToolError, match="needs options"):
        await human.ask("pick", input_type="choice")
    with human.replay([]), pytest.raises(ToolError, match="default is not a valid answer"):
        await human.ask("pick", input_type="choice", options=["a"], on_timeout="use_default", default="b")


async def test_tool_handoff_timeout_uses_its_default(store: AsyncStore) -> None:
    rt = runtime(store)
    state = await rt.start("confirm window sunday", "U1")
    assert state.pending is not None and state.pending.anchor == "handoff"
    assert state.pending.deadline == NOW[0] + 600
    NOW[0] += 500
    assert await rt.tick() == 1  # the reminder
    state, _ = await store.load(state.id)
    assert state.pending is not None and state.pending.remind_at is None
    NOW[0] += 200
    assert await rt.tick() == 1
    state, _ = await store.load(state.id)
    assert state.plan[0].result == "window sunday declined"
    kinds = [e.kind for e in await store.events(state.id)]
    assert "timed_out" in kinds and kinds.count("remind") == 1


def _config(strategy: str, **extra: Any) -> PolicyConfig:
    rule = TimeoutRule(after=3600, strategy=strategy, **extra)  # type: ignore[arg-type]
    return PolicyConfig(timeouts={"after_plan": rule, "before_risky_step": rule}, **extra.pop("config", {}))


async def test_timeout_cancel_cancels_and_says_why(store: AsyncStore) -> None:
    rt = runtime(store, config=_config("cancel"))
    state = await rt.start("move service payments", "U1")
    assert state.pending is not None and state.pending.deadline == NOW[0] + 3600
    review_id = state.pending.id
    NOW[0] += 3601
    assert await rt.tick() == 1
    state, _ = await store.load(state.id)
    assert state.status == "cancelled" and "No decision within" in (state.error or "")
    record = await store.get_review(review_id)
    assert record is not None and record.status == "answered" and record.answered_by == "tandem (timeout)"


async def test_timeout_use_default_continues_low_risk_review(store: AsyncStore) -> None:
    config = PolicyConfig(timeouts={"after_plan": TimeoutRule(after=60, strategy="use_default", default="approve")})
    rt = runtime(store, config=config)
    state = await rt.start("move service payments", "U1")
    assert state.pending is not None and state.pending.anchor == "after_plan"
    NOW[0] += 61
    await rt.tick()
    state, _ = await store.load(state.id)
    # the plan review continued by default; the write step's own gate has no timeout and waits
    assert state.pending is not None and state.pending.anchor == "before_risky_step"
    events = await store.events(state.id)
    timed_out = [e for e in events if e.kind == "timed_out"]
    closed = [e.payload for e in events if e.kind == "close_review" and e.payload.get("by") == "tandem (timeout)"]
    assert timed_out[0].actor == "tandem (timeout)" and closed[0]["answer"]["action"] == "use_default"


@pytest.mark.parametrize("kind", ["before_risky_step", "recovery"])
def test_timeout_use_default_on_a_gate_is_refused_when_the_policy_loads(kind: str) -> None:
    with pytest.raises(ValidationError, match=f"timeouts.{kind}.strategy: 'use_default' would let a gated step run"):
        PolicyConfig.model_validate(
            {"timeouts": {kind: {"after": 60, "strategy": "use_default", "default": "approve"}}}
        )


async def test_timeout_pause_keeps_waiting_and_reminds(store: AsyncStore) -> None:
    rt = runtime(store, config=_config("pause"))
    state = await rt.start("move service payments", "U1")
    NOW[0] += 3601
    assert await rt.tick() == 1
    state, _ = await store.load(state.id)
    assert state.pending is not None and state.pending.stale and state.pending.deadline is None
    assert await rt.tick() == 0, "a paused review is not handled again"
    assert (await rt.decide(state.id, Cancel(), "U1")).status == "cancelled"


async def test_timeout_reassign_walks_the_assignees_then_escalates(store: AsyncStore) -> None:
    from agent.models import Review

    rt = runtime(store, config=_config("reassign"))
    state = await rt.start("move service payments", "U1")
    assert state.pending is not None
    # a review with assignees (as a handoff would carry)
    loaded, version = await store.load(state.id)
    assert loaded.pending is not None
    loaded.pending.assignees = ["U2", "U3"]
    await store.commit(loaded, version, [])
    NOW[0] += 3601
    await rt.tick()
    state, _ = await store.load(state.id)
    review: Review | None = state.pending
    assert review is not None and review.current_assignees == ["U3"] and review.deadline == NOW[0] + 3600
    NOW[0] += 3601
    await rt.tick()
    state, _ = await store.load(state.id)
    assert state.pending is not None and state.pending.escalated


async def test_expiry_while_down_is_handled_at_the_next_start(store: AsyncStore, tmp_path: Path) -> None:
    rt = runtime(store, config=_config("cancel"))
    state = await rt.start("move service payments", "U1")
    NOW[0] += 7200  # the bot was down past the deadline
    async with AsyncStore(tmp_path / "h.db") as fresh_store:
        fresh = runtime(fresh_store, config=_config("cancel"))
        assert await fresh.tick() == 1
        assert (await fresh_store.load(state.id))[0].status == "cancelled"


async def test_unsure_planner_asks_first_and_plans_from_the_answer(tmp_path: Path) -> None:
    async with AsyncStore(tmp_path / "p.db") as store:
        rt = Runtime(store, LLMBrain(OfflineModel()), load_tools(["demo.tools"]), clock=clock)
        state = await rt.start("fix it", "U1")
        assert state.pending is not None and state.pending.anchor == "handoff" and state.pending.step is None
        assert state.pending.handoff is not None and "What should I do" in state.pending.handoff.prompt
        state = await rt.decide(state.id, Answer(value="restart payments and check errors after"), "U1")
        assert state.pending is not None and state.pending.anchor == "after_plan"
        assert [s.tool for s in state.plan] == ["restart_service", "read_logs"]
        assert state.feedback[-1].intent == "answer"


async def test_planner_asks_at_most_twice_then_shows_its_best_guess(tmp_path: Path) -> None:
    async with AsyncStore(tmp_path / "p.db") as store:
        rt = Runtime(store, LLMBrain(OfflineModel()), load_tools(["demo.tools"]), clock=clock)
        state = await rt.start("fix it", "U1")
        state = await rt.decide(state.id, Answer(value="dunno"), "U1")
        assert state.pending is not None and state.pending.anchor == "handoff"
        state = await rt.decide(state.id, Answer(value="no idea"), "U1")
        assert state.pending is not None and state.pending.anchor != "handoff"
        assert state.plan, "the best guess is shown for review"


async def test_planner_question_off_when_threshold_is_zero(tmp_path: Path) -> None:
    async with AsyncStore(tmp_path / "p.db") as store:
        config = PolicyConfig(confidence_threshold=0.0)
        rt = Runtime(store, LLMBrain(OfflineModel()), load_tools(["demo.tools"]), clock=clock, config=config)
        state = await rt.start("fix it", "U1")
        assert state.pending is None or state.pending.anchor != "handoff"


async def test_declining_a_tools_own_question_is_refused_and_changes_nothing(store: AsyncStore) -> None:
    rt = runtime(store)
    run_id = await to_question(rt)
    before = await store.load(run_id)
    with pytest.raises(InvalidDecision, match="Only an MCP server's question can be declined"):
        await rt.decide(run_id, Answer(value=None, declined=True), "U1")
    assert await store.load(run_id) == before
