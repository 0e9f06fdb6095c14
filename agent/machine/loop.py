"""The machine's entry points: ``start`` a run, and ``transition`` it by one event."""

from __future__ import annotations

from typing import assert_never

from agent.errors import InvalidDecision
from agent.machine.decisions import _on_decision
from agent.machine.execution import _on_plan, _on_step_finished, _on_step_revised
from agent.machine.handoffs import _on_plan_question, _on_step_paused
from agent.machine.helpers import Result, _ask, _finish, _takeover, _work
from agent.machine.recovery import _on_recovered
from agent.machine.takeover import _on_step_proposed
from agent.machine.timeouts import _on_timed_out
from agent.models import (
    CancelRequested,
    Decided,
    Event,
    MakePlan,
    OutputReady,
    PlanFailed,
    PlanProposed,
    PlanQuestion,
    Recovered,
    ReviseFailed,
    RunState,
    StepFinished,
    StepPaused,
    StepProposedEvent,
    StepRevised,
    TimedOut,
)


def start(run_id: str, task: str, requester: str, at: float, **fields: object) -> Result:
    """A new run, planning."""
    state = RunState.model_validate(
        {"id": run_id, "task": task, "requester": requester, "created_at": at, "updated_at": at, **fields}
    )
    return _work(state, MakePlan(), "planning")


def transition(state: RunState, event: Event) -> Result:
    """Apply one event to a copy of ``state``; return the new state and what to do next."""
    if state.finished:
        raise InvalidDecision(f"Run {state.id} is already {state.status}; nothing more can happen to it.")
    # A fresh copy (3x cheaper than deepcopy): the caller's state is never mutated.
    s = RunState.model_validate(state.model_dump())
    s.updated_at = event.at
    match event:
        case PlanProposed():
            return _on_plan(s, event)
        case PlanFailed():
            s.inflight = None
            return _takeover(s, event, f"The planner could not produce a valid plan: {event.error}")
        case Decided():
            return _on_decision(s, event)
        case StepFinished():
            return _on_step_finished(s, event)
        case StepRevised():
            return _on_step_revised(s, event)
        case ReviseFailed():
            s.inflight = None
            anchor = s.return_anchor or "after_plan"
            return _ask(
                s,
                event,
                anchor,
                _pending_or_step(s, event.number),
                note=f"Could not revise step {event.number}: {event.error}",
            )
        case OutputReady():
            s.inflight = None
            s.output = event.text
            if s.finishing or "before_result" not in s.anchors:
                return _finish(s, "done")
            return _ask(s, event, "before_result")
        case StepProposedEvent():
            return _on_step_proposed(s, event)
        case Recovered():
            return _on_recovered(s, event)
        case CancelRequested():
            note = f"Cancelled by {event.by}" + (f": {event.reason}" if event.reason else "")
            return _finish(s, "cancelled", note=note)
        case StepPaused():
            return _on_step_paused(s, event)
        case TimedOut():
            return _on_timed_out(s, event)
        case PlanQuestion():
            return _on_plan_question(s, event)
        case _:
            assert_never(event)


def _pending_or_step(s: RunState, number: int) -> int | None:
    return number if any(x.number == number for x in s.plan) else None
