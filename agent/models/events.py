"""Events: the loop's inputs (results of work, people's decisions, the scheduler, recovery)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from agent.models.base import _Tagged
from agent.models.decisions import Decision, Reading
from agent.models.lessons import LessonUse
from agent.models.reviews import Handoff
from agent.models.rules import GateDecision, Rule
from agent.models.steps import ProposedStep, TimeoutOutcome


class _Event(_Tagged):
    at: float
    nonce: str = ""


class PlanProposed(_Event):
    kind: Literal["plan_proposed"] = "plan_proposed"
    steps: list[ProposedStep]
    lessons: list[LessonUse] = Field(default_factory=list)  # what earlier corrections taught, given to the planner


class PlanFailed(_Event):
    kind: Literal["plan_failed"] = "plan_failed"
    error: str


class Decided(_Event):
    kind: Literal["decided"] = "decided"
    review_id: str
    decision: Decision
    by: str
    reading: Reading | None = None  # set when the decision was read from free text
    groups: list[str] = Field(default_factory=list)  # the decider's groups as their channel knew them then
    partial: bool = False  # written by releases that counted quorums outside the machine; ignored


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
    """The scheduler found a review past its reminder time or deadline; the machine decides what follows."""

    kind: Literal["timed_out"] = "timed_out"
    review_id: str
    # Written by releases whose scheduler chose the action; ignored now.
    action: str | None = None
    deadline: float | None = None


class RuleChecked(_Event):
    """The standing "always allow" rule found for a gated step, or none."""

    kind: Literal["rule_checked"] = "rule_checked"
    number: int
    rule: Rule | None = None
    # The latest decisions at gates of this call's shape in the channel, newest first (when no rule applies).
    history: list[GateDecision] = Field(default_factory=list)


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
    | PlanQuestion
    | RuleChecked,
    Field(discriminator="kind"),
]
