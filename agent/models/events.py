"""Events: the loop's inputs (results of work, people's decisions, the scheduler, recovery)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from agent.models.base import Tagged
from agent.models.decisions import Correct, Decision, Reading
from agent.models.lessons import LessonUse
from agent.models.reviews import Handoff
from agent.models.rules import GateDecision, Rule
from agent.models.steps import ProposedStep, TimeoutOutcome


class EventBase(Tagged):
    at: float
    nonce: str = ""


class PlanProposed(EventBase):
    kind: Literal["plan_proposed"] = "plan_proposed"
    steps: list[ProposedStep]
    lessons: list[LessonUse] = Field(default_factory=list)  # the lessons of earlier corrections that shaped the plan
    unknown: str | None = None
    """A value the correction behind this replan asks for that the tools do not know ("There is no service
    `orders`. Known: …"): said when the plan comes back unchanged."""


class PlanDeclined(EventBase):
    """No tool can do any part of the task (``reason`` says so, and what the tools can do)."""

    kind: Literal["plan_declined"] = "plan_declined"
    reason: str


class PlanFailed(EventBase):
    kind: Literal["plan_failed"] = "plan_failed"
    error: str


class Decided(EventBase):
    kind: Literal["decided"] = "decided"
    review_id: str
    decision: Decision
    by: str
    reading: Reading | None = None  # set when the decision was read from free text
    groups: list[str] = Field(default_factory=list)  # the decider's groups as their channel knew them then
    partial: bool = False  # written by releases that counted quorums outside the machine; ignored


class StepFinished(EventBase):
    kind: Literal["step_finished"] = "step_finished"
    number: int
    ok: bool
    result: Any = None
    error: str | None = None
    timed_out: TimeoutOutcome | None = None  # set when the step ran out of time: was the call stopped?


class StepRevised(EventBase):
    kind: Literal["step_revised"] = "step_revised"
    number: int
    params: dict[str, Any]


class ReviseFailed(EventBase):
    kind: Literal["revise_failed"] = "revise_failed"
    number: int
    error: str


class OutputReady(EventBase):
    kind: Literal["output_ready"] = "output_ready"
    text: str
    not_done: list[str] | None = None
    """Parts of the task no step did (a written result); None for a rework, which keeps what was found."""


class StepProposedEvent(EventBase):
    """What a takeover instruction turned into: one step, a wish (finish, hand back,
    cancel), or neither (``message`` says why)."""

    kind: Literal["step_proposed"] = "step_proposed"
    step: ProposedStep | None = None
    wish: Literal["finish", "hand_back", "cancel"] | None = None
    message: str = ""


class Recovered(EventBase):
    kind: Literal["recovered"] = "recovered"
    idempotent: bool = False
    """The tool of the step in flight says a second call changes nothing (a trusted MCP server's
    ``idempotentHint``): the step is made again without asking."""


class PlanQuestion(EventBase):
    """The planner was unsure and asks a person before planning (the answer becomes feedback)."""

    kind: Literal["plan_question"] = "plan_question"
    question: str
    options: list[str] = Field(default_factory=list)


class StepPaused(EventBase):
    """A tool asked a person something (``human.ask``); the step waits for the answer."""

    kind: Literal["step_paused"] = "step_paused"
    number: int
    handoff: Handoff
    assignees: list[str] = Field(default_factory=list)
    quorum: int = 1
    timeout: float | None = None
    on_timeout: Literal["cancel", "reassign", "use_default", "pause", "escalate"] | None = None


class TimedOut(EventBase):
    """The scheduler found a review past its reminder time or deadline; the machine decides what follows."""

    kind: Literal["timed_out"] = "timed_out"
    review_id: str
    # Written by releases whose scheduler chose the action; ignored now.
    action: str | None = None
    deadline: float | None = None


class RuleChecked(EventBase):
    """The standing "always allow" rule found for a gated step, or none."""

    kind: Literal["rule_checked"] = "rule_checked"
    number: int
    rule: Rule | None = None
    # The latest decisions at gates of this call's shape in the channel, newest first (when no rule applies).
    history: list[GateDecision] = Field(default_factory=list)


class CancelRequested(EventBase):
    """A person stops the run while it works (no review needed)."""

    kind: Literal["cancel_requested"] = "cancel_requested"
    by: str
    reason: str = ""


class Reopened(EventBase):
    """A person's correction in the thread of a run that is done: the run opens again to apply it
    (as at its result review), where the policy lets it (see ``SafetyPolicy.reopen_refusal``)."""

    kind: Literal["reopened"] = "reopened"
    by: str
    decision: Correct
    reading: Reading | None = None  # set when the correction was read from free text


Event = Annotated[
    PlanProposed
    | PlanDeclined
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
    | RuleChecked
    | Reopened,
    Field(discriminator="kind"),
]
