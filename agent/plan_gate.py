"""A risky step as a plan review shows it: whether approving the plan approves it too (decided in
:mod:`agent.merge`, worded in :mod:`agent.messages`)."""

from __future__ import annotations

from dataclasses import dataclass

from agent.models import Step

__all__ = ["PlanGate"]


@dataclass(frozen=True)
class PlanGate:
    """A risky step of a plan under review, and whether approving the plan approves it too."""

    step: Step
    params: str  # its exact parameters as the plan review shows them: ``service=payments``
    approvers: tuple[str, ...]  # who may approve its gate (principal ids of the run's platform)
    merges: bool  # approving the plan approves this step too, when one of ``approvers`` approves it
    everyone: bool  # everyone who may approve the plan may approve this step
    held: str | None = None  # why its gate stays on its own for everyone, when it does (besides ``apart``)
    apart: bool = False  # the run's policy keeps every risky step's gate apart from the plan's approval
