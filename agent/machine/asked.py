"""A handoff asked through the API: a run whose plan is one ``human.ask`` step, paused at its question.

The run is stored, delivered, decided, reminded and timed out like any other: its one review is the
``handoff`` review a tool's ``human.ask`` opens. The step never runs a tool: the answer is its result,
and the run ends with it (see :func:`agent.machine.handoffs.answered`).
"""

from __future__ import annotations

from typing import Literal, TypedDict

from agent.machine.handoffs import on_step_paused
from agent.models import ASK_TOOL, AnyOrigin, Effect, Handoff, Policy, RunState, Step, StepPaused
from agent.policy import SafetyPolicy

OnTimeout = Literal["cancel", "reassign", "use_default", "escalate"]


class AskTerms(TypedDict):
    """Who answers and by when: the question's assignees, how many of them must answer alike, seconds until
    its deadline, and what happens then."""

    assignees: list[str]
    quorum: int
    timeout: float | None
    on_timeout: OnTimeout | None


def start(
    run_id: str,
    requester: str,
    origin: AnyOrigin,
    handoff: Handoff,
    at: float,
    policy: SafetyPolicy,
    *,
    limits: Policy,
    assignees: list[str],
    quorum: int,
    timeout: float | None,
    on_timeout: OnTimeout | None,
) -> tuple[RunState, list[Effect], StepPaused]:
    """A new run asking ``handoff`` of its assignees, waiting for them; with
    the event that paused it, for the audit trail."""
    step = Step(number=1, tool=ASK_TOOL, reason=handoff.reason, status="running")  # its review carries the question
    s = RunState(
        id=run_id,
        task=handoff.prompt,
        requester=requester,
        created_at=at,
        updated_at=at,
        plan=[step],
        executed=1,
        origin=origin,
        policy=limits,
    )
    paused = StepPaused(
        at=at,
        nonce=run_id,
        number=1,
        handoff=handoff,
        assignees=assignees,
        quorum=quorum,
        timeout=timeout,
        on_timeout=on_timeout,
    )
    s, effects = on_step_paused(s, paused)
    assert s.pending is not None
    policy.open(s, s.pending)  # as for every new review (its deadline from the policy when none was given)
    return s, effects, paused
