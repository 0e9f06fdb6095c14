"""Recovery after a crash: resume the work in flight, but never re-run a step with effects without a person."""

from __future__ import annotations

from agent.machine.execution import run_step
from agent.machine.helpers import Result, ask_person
from agent.models import Recovered, RunState, RunStep
from agent.policy import SafetyPolicy


def on_recovered(s: RunState, event: Recovered, policy: SafetyPolicy) -> Result:
    work = s.inflight
    if work is None:
        return s, []
    if isinstance(work, RunStep):
        step = s.step(work.number)
        s.inflight = None
        s.executed -= 1  # it is counted again if it re-runs
        if policy.rerun_needs_person(step, idempotent=event.idempotent):
            step.status = "failed"
            step.error = "Tandem stopped while this step was running; it may or may not have taken effect."
            return ask_person(s, event, "recovery", step.number, digest=step.digest)
        return run_step(s, step, policy)
    return s, [work]
