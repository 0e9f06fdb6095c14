"""A review carries its evidence: which steps' outcomes each review shows, cut to first lines, errors in full."""

from __future__ import annotations

import itertools
from typing import Any

from agent import machine
from agent.evidence import FIRST_LINES, chips, details_text, note_asked
from agent.models import (
    Approve,
    Correct,
    Decided,
    OutputReady,
    PlanProposed,
    Policy,
    ProposedStep,
    Risk,
    RunState,
    RunStep,
    StepFinished,
    StepRevised,
    Summarize,
)
from agent.policy import SafetyPolicy
from agent.review_view import review_view

LOGS = "\n".join(f"2026-12-04T03:0{i % 10}:00Z ERROR payments: connection pool exhausted ({i})" for i in range(20))
_ticks = itertools.count(1)


def _at() -> dict[str, Any]:
    n = next(_ticks)
    return {"at": 5000.0 + n, "nonce": f"e{n}"}


def _step(tool: str, risk: Risk = Risk.READ, **params: Any) -> ProposedStep:
    return ProposedStep(tool=tool, params=params, reason=f"because {tool}", risk=risk)


STORY = [
    _step("check_service", service="payments"),
    _step("read_logs", service="payments", level="error"),
    _step("restart_service", Risk.EXEC, service="payments"),
    _step("read_logs", service="payments", level="error", limit=5),
]


OUTCOME_STOPS = Policy(after_risky_step="any_follows")  # the restart's outcome is reviewed before the read after it


def _planned(steps: list[ProposedStep], policy: Policy | None = None) -> RunState:
    state, _ = machine.start("r1", "restart payments and check errors after", "U1", 5000.0, policy=policy or Policy())
    state, _ = machine.transition(state, PlanProposed(steps=steps, **_at()))
    return state


def _decide(state: RunState, decision: Any) -> RunState:
    assert state.pending is not None
    state, _ = machine.transition(state, Decided(review_id=state.pending.id, decision=decision, by="U1", **_at()))
    return state


def _finish(state: RunState, result: Any = "ok", *, ok: bool = True, error: str | None = None) -> RunState:
    assert isinstance(state.inflight, RunStep), state.inflight
    event = StepFinished(number=state.inflight.number, ok=ok, result=result if ok else None, error=error, **_at())
    state, _ = machine.transition(state, event)
    return state


def _shown(state: RunState) -> list[int]:
    assert state.pending is not None
    return [e.number for e in review_view(state, state.pending, SafetyPolicy()).evidence]


def _at_gate(policy: Policy | None = None) -> RunState:
    state = _decide(_planned(STORY, policy), Approve())
    state = _finish(state, {"healthy": False, "error_rate": 0.12})
    return _finish(state, LOGS)


def test_evidence_gate_after_reads_shows_both_outputs() -> None:
    state = _at_gate()
    assert state.pending is not None and state.pending.anchor == "before_risky_step"
    assert _shown(state) == [1, 2]
    logs = review_view(state, state.pending, SafetyPolicy()).evidence[1]
    assert logs.tool == "read_logs" and logs.first_lines[0].endswith("connection pool exhausted (0)")
    assert (len(logs.first_lines), logs.total_lines, logs.more_lines) == (FIRST_LINES, 20, 20 - FIRST_LINES)
    assert logs.text == LOGS
    assert [c.text for c in logs.params] == ["service=payments", "level=error"]


def test_evidence_plan_review_shows_none() -> None:
    state = _planned(STORY)
    assert state.pending is not None and state.pending.anchor == "after_plan"
    assert _shown(state) == []


def test_evidence_after_the_restart_shows_only_the_restart() -> None:
    state = _finish(_decide(_at_gate(OUTCOME_STOPS), Approve()), "restarted 3/3 replicas")
    assert state.pending is not None and state.pending.anchor == "after_risky_step"
    assert _shown(state) == [3]


def _outcomes(state: RunState) -> tuple[str, ...]:
    assert state.pending is not None
    return review_view(state, state.pending, SafetyPolicy()).outcomes


def test_evidence_result_review_shows_steps_since_the_last_review() -> None:
    state = _finish(_decide(_at_gate(OUTCOME_STOPS), Approve()), "restarted 3/3 replicas")
    state = _finish(_decide(state, Approve()), "no errors in the last 5 minutes")
    assert isinstance(state.inflight, Summarize)
    state, _ = machine.transition(state, OutputReady(text="Payments restarted.", **_at()))
    assert state.pending is not None and state.pending.anchor == "before_result"
    assert _shown(state) == [4]
    # the restart's outcome is told once more at the result, as the one line every result gives a risky step
    assert [line.split(":")[0] for line in _outcomes(state)] == ["Step 3 restart_service (exec) ran"]


def test_evidence_result_review_without_an_outcome_stop_shows_the_restart_once() -> None:
    state = _finish(_decide(_at_gate(), Approve()), "restarted 3/3 replicas")
    assert isinstance(state.inflight, RunStep) and state.inflight.number == 4  # a read follows: no outcome stop
    state = _finish(state, "no errors in the last 5 minutes")
    state, _ = machine.transition(state, OutputReady(text="Payments restarted.", **_at()))
    assert state.pending is not None and state.pending.anchor == "before_result"
    assert _shown(state) == [3, 4]
    assert _outcomes(state) == ()  # shown as evidence, so not again as an outcome line


def test_evidence_gate_asked_again_after_revised_params_still_shows_the_logs() -> None:
    state = _decide(_at_gate(), Correct(feedback="use 5 replicas", intent="retry_step", target_step=3))
    state, _ = machine.transition(state, StepRevised(number=3, params={"service": "payments", "replicas": 5}, **_at()))
    assert state.pending is not None and state.pending.anchor == "before_risky_step"
    assert _shown(state) == [1, 2]


def test_evidence_failed_step_error_is_shown_in_full() -> None:
    error = "\n".join(f"Traceback line {i}" for i in range(40))
    state = _decide(_planned(STORY), Approve())
    state = _finish(state, ok=False, error=error)
    assert state.pending is not None and state.pending.anchor == "step_failed"
    (failed,) = review_view(state, state.pending, SafetyPolicy()).evidence
    assert failed.status == "failed" and failed.error == error
    assert len(failed.first_lines) == 40 and failed.more_lines == 0


def test_evidence_after_a_replan_shows_steps_moved_to_history() -> None:
    state = _decide(_planned(STORY), Approve())
    state = _finish(state, ok=False, error="service payments: unknown region")
    state = _decide(state, Correct(feedback="check orders instead", intent="replan"))
    state, _ = machine.transition(state, PlanProposed(steps=[_step("restart_service", Risk.EXEC)], **_at()))
    if state.pending is not None and state.pending.anchor == "after_plan":
        state = _decide(state, Approve())
    assert state.pending is not None and state.pending.anchor == "before_risky_step"
    assert [s.number for s in state.history] == [1]
    # the failed step was shown at its own review; the new gate shows nothing new
    assert _shown(state) == []
    assert "unknown region" in details_text(state, [1])


def test_note_asked_old_run_without_a_record_shows_every_finished_step() -> None:
    state = _at_gate()
    state.asked = None
    assert note_asked(state, "before_risky_step", 3) == [1, 2]


def test_chips_values_are_one_line_and_json_for_non_strings() -> None:
    made = chips({"service": "payments", "lines": "a\nb", "replicas": 3, "tags": ["x", "y"]})
    assert [c.text for c in made] == ["service=payments", "lines=a↵b", "replicas=3", 'tags=["x", "y"]']


def test_details_text_has_exact_params_and_the_whole_output() -> None:
    state = _at_gate()
    text = details_text(state, [2, 3])
    assert LOGS in text
    assert '"level": "error"' in text
    assert "Step 3 · restart_service · exec · not run yet" in text


def test_stored_run_keeps_what_the_last_review_showed() -> None:
    state = _at_gate()
    loaded = RunState.model_validate_json(state.model_dump_json(exclude_defaults=True))
    assert loaded.asked == state.asked and loaded.pending is not None and loaded.pending.evidence == [1, 2]
    assert note_asked(loaded, "after_risky_step", 3) == []  # nothing new since: 1 and 2 were shown
