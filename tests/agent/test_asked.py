"""A run asked through the API: one question, answered once, and the run ends with the answer as its result."""

from __future__ import annotations

import pytest

from agent import machine
from agent.errors import InvalidDecision
from agent.machine import asked
from agent.models import Answer, AskHuman, Decided, Finished, Handoff, Policy, RunState, Terminal
from agent.policy import SafetyPolicy

T0 = 1_700_000_000.0
SAFETY = SafetyPolicy()
QUESTION = Handoff(prompt="Roll back checkout?", input_type="choice", options=["roll back", "keep"])


def started(assignees: list[str] | None = None) -> RunState:
    state, effects, _ = asked.start(
        "h1",
        "token:ci",
        Terminal(),
        QUESTION,
        T0,
        SAFETY,
        limits=Policy(),
        assignees=assignees or [],
        quorum=1,
        timeout=600,
        on_timeout="cancel",
    )
    assert [e.kind for e in effects] == ["ask_human"] and isinstance(effects[0], AskHuman)
    return state


def test_asked_run_waits_at_its_question_with_its_deadline_and_no_work_in_flight() -> None:
    state = started()

    assert (state.status, state.inflight, state.requester) == ("awaiting_review", None, "token:ci")
    assert state.pending is not None and state.pending.anchor == "handoff"
    assert state.pending.handoff == QUESTION and state.pending.deadline == T0 + 600


def test_asked_run_answered_ends_done_with_the_answer_and_runs_no_tool() -> None:
    state = started()
    assert state.pending is not None
    decided = Decided(at=T0 + 5, nonce="n1", review_id=state.pending.id, decision=Answer(value="keep"), by="U0ALICE")

    after, effects = machine.transition(state, decided, SAFETY)

    assert (after.status, after.output, after.plan[0].result) == ("done", "keep", "keep")
    assert not any(e.kind == "run_step" for e in effects)
    assert any(isinstance(e, Finished) for e in effects)


def test_asked_run_answer_not_among_the_options_is_refused_and_the_question_stays() -> None:
    state = started()
    assert state.pending is not None
    wrong = Decided(at=T0 + 5, nonce="n1", review_id=state.pending.id, decision=Answer(value="mars"), by="U0ALICE")

    with pytest.raises(InvalidDecision, match="not one of the options"):
        machine.transition(state, wrong, SAFETY)


def test_asked_run_may_be_withdrawn_by_the_token_that_asked_and_not_by_an_outsider() -> None:
    state = started(assignees=["U0ALICE"])

    assert SAFETY.may_stop(state, "token:ci") is None
    assert SAFETY.may_stop(state, "token:other") is not None
    assert SAFETY.may_stop(state, "U0CAROL") is not None
