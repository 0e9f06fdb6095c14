"""Waits and durations read as people say them: seconds under a minute, never ``0 min``."""

from __future__ import annotations

import pytest

from agent import machine
from agent.config import PolicyConfig, TimeoutRule
from agent.durations import spoken
from agent.models import PlanProposed, Policy, ProposedStep, Risk, TimedOut
from agent.outcome import outcome
from agent.policy import SafetyPolicy


@pytest.mark.parametrize(
    ("seconds", "said"),
    [
        (0, "0 s"),
        (29.6, "30 s"),
        (59, "59 s"),
        (60, "1 min"),
        (45 * 60 + 10, "45 min"),
        (3600, "1 h"),
        (80 * 60, "1 h 20 min"),
        (26 * 3600 + 300, "26 h"),
        (3 * 86400, "3 days"),
        (2.5 * 86400, "2.5 days"),
        (3.5 * 86400, "3.5 days"),
        (-5, "0 s"),
    ],
)
def test_spoken_duration_picks_a_readable_unit(seconds: float, said: str) -> None:
    assert spoken(seconds) == said


def test_review_deadline_under_a_minute_cancels_saying_the_seconds_once() -> None:
    rule = TimeoutRule(after=30, strategy="cancel")
    policy = SafetyPolicy(PolicyConfig(timeouts={"after_plan": rule}))
    state, _ = machine.start("r1", "check payments", "U1", 1000.0, policy=Policy(anchors=frozenset({"after_plan"})))
    step = ProposedStep(tool="restart_service", params={"service": "payments"}, reason="fix", risk=Risk.EXEC)
    state, _ = machine.transition(state, PlanProposed(steps=[step], at=1001.0, nonce="p"), policy)
    assert state.pending is not None
    event = TimedOut(review_id=state.pending.id, at=1031.0, nonce="t")
    state, effects = machine.transition(state, event, policy)
    ended = outcome(state)
    assert ended is not None and ended.line() == "🛑 Cancelled."
    assert state.error == "No decision within 30 s."
    assert not [e for e in effects if e.kind == "notify"], "the finished line says it; no second line"
