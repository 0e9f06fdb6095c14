"""Events: the loop's inputs (results of work, people's decisions, the scheduler, recovery)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from agent.models.base import _Tagged
from agent.models.decisions import Decision
from agent.models.reviews import Handoff
from agent.models.steps import ProposedStep, TimeoutOutcome


class _Event(_Tagged):
    at: float
    nonce: str = ""


class PlanProposed(_Event):
    kind: Literal["plan_proposed"] = "plan_proposed"
    steps: list[ProposedStep]


class PlanFailed(_Event):
    kind: Literal["plan_failed"] = "plan_failed"
    error: str


class Decided(_Event):
    kind: Literal["decided"] = "decided"
    review_id: str
    decision: Decision
    by: str
    partial: bool = False  # an approval recorded while the quorum is not met yet


class StepFinished(_Event):
    kind: Literal["step_finished"] = "step_finished"
    number: int
    ok: bool
    result: Any = None
    error: str | None = None
    timed_out: TimeoutOutcome | None = None  # set when the step ran out of time: was the call stopped?


class StepRevised(_Event):
    kind: Literal["step_revised"] = "step_revised"
    number: int
    params: dict[str, Any]


class ReviseFailed(_Event):
    kind: Literal["revise_failed"] = "revise_failed"
    number: int
    error: str


class OutputReady(_Event):
    kind: Literal["output_ready"] = "output_ready"
    text: str


class StepProposedEvent(_Event):
    """What a takeover instruction turned into: one step, a wish (finish, hand back,
    cancel), or neither (``message`` says why)."""

    kind: Literal["step_proposed"] = "step_proposed"
    step: ProposedStep | None = None
    wish: Literal["finish", "hand_back", "cancel"] | None = None
    message: str = ""


class Recovered(_Event):
    kind: Literal["recovered"] = "recovered"


class PlanQuestion(_Event):
    """The planner was unsure and asks a person before planning (the answer becomes feedback)."""

    kind: Literal["plan_question"] = "plan_question"
    question: str
    options: list[str] = Field(default_factory=list)


class StepPaused(_Event):
    """A tool asked a person something (``human.ask``); the step waits for the answer."""

    kind: Literal["step_paused"] = "step_paused"
    number: int
    handoff: Handoff
    assignees: list[str] = Field(default_factory=list)
    quorum: int = 1
    timeout: float | None = None
    on_timeout: Literal["cancel", "reassign", "use_default", "pause"] | None = None


class TimedOut(_Event):
    """The scheduler found a review past its reminder time or deadline."""

    kind: Literal["timed_out"] = "timed_out"
    review_id: str
    action: Literal["remind", "cancel", "reassign", "use_default", "pause"]
    deadline: float | None = None  # the fresh deadline, for reassign


class CancelRequested(_Event):
    """A person stops the run while it works (no review needed)."""

    kind: Literal["cancel_requested"] = "cancel_requested"
    by: str
    reason: str = ""


Event = Annotated[
    PlanProposed
    | PlanFailed
    | Decided
    | StepFinished
    | StepRevised
    | ReviseFailed
    | OutputReady
    | StepProposedEvent
    | Recovered
    | CancelRequested
    | StepPaused
    | TimedOut
    | PlanQuestion,
    Field(discriminator="kind"),
]
