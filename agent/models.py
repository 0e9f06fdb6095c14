"""The loop's vocabulary: risk, steps, reviews, decisions, events, effects, run state.

Everything here is plain data (pydantic models with a ``kind`` tag). The state
machine in :mod:`agent.machine` turns ``(state, event)`` into ``(state, effects)``.
"""

from __future__ import annotations

import hashlib
import json
from enum import IntEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer


class Risk(IntEnum):
    """How much harm a tool can do. Ordered: read < write < exec < deploy."""

    READ = 0
    WRITE = 1
    EXEC = 2
    DEPLOY = 3

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, value: str | int | Risk) -> Risk:
        if isinstance(value, Risk):
            return value
        if isinstance(value, int):
            return cls(value)
        try:
            return cls[value.strip().upper()]
        except KeyError:
            names = ", ".join(r.label for r in cls)
            raise ValueError(f"unknown risk level {value!r}; use one of {names}") from None


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Tagged(_Model):
    """A member of a tagged union: its ``kind`` is always written, even when
    defaults are left out, so stored JSON parses back to the right class."""

    @model_serializer(mode="wrap")
    def _keep_kind(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        data["kind"] = getattr(self, "kind")  # noqa: B009
        return data


Anchor = Literal[
    "handoff",
    "after_plan",
    "before_risky_step",
    "after_risky_step",
    "before_result",
    "step_failed",
    "recovery",
    "takeover",
    "takeover_step",
]
CONFIGURABLE_ANCHORS: tuple[Anchor, ...] = ("after_plan", "after_risky_step", "before_result")
Intent = Literal["replan", "retry_step", "refine_output"]
StepStatus = Literal["pending", "running", "waiting", "done", "failed", "skipped"]
Phase = Literal[
    "planning",
    "replanning",
    "awaiting_review",
    "executing",
    "retrying",
    "summarizing",
    "refining",
    "human_takeover",
    "done",
    "cancelled",
    "failed",
]
Status = Literal["planning", "awaiting_review", "executing", "done", "human_takeover", "cancelled", "failed"]
TERMINAL: frozenset[str] = frozenset({"done", "cancelled", "failed"})


def params_digest(tool: str, params: dict[str, Any]) -> str:
    """A short fingerprint of exactly what a person approved."""
    blob = json.dumps({"tool": tool, "params": params}, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


# --- plans and steps -------------------------------------------------------


class PlannedStep(_Model):
    """One step as the planner proposes it (not yet checked against the registry)."""

    tool: str
    params: dict[str, Any] = Field(default_factory=dict)
    reason: str = ""


class ProposedStep(PlannedStep):
    """A planned step that passed validation, with the tool's risk attached."""

    risk: Risk


class Step(_Model):
    number: int
    tool: str
    params: dict[str, Any] = Field(default_factory=dict)
    reason: str = ""
    risk: Risk = Risk.READ
    status: StepStatus = "pending"
    result: Any = None
    error: str | None = None
    attempts: int = 0
    approved_digest: str | None = None
    approved_by: str | None = None
    answers: list[Any] = Field(default_factory=list)
    started_at: float | None = None
    finished_at: float | None = None

    @property
    def digest(self) -> str:
        return params_digest(self.tool, self.params)


class Policy(_Model):
    """Where a run pauses and how far it may go. Snapshotted into each run."""

    anchors: frozenset[Anchor] = frozenset(CONFIGURABLE_ANCHORS)
    confirm_threshold: Risk = Risk.WRITE
    dynamic_anchors: bool = True
    max_retries: int = 3
    max_steps: int = 10
    step_timeout: float = 30.0

    def is_risky(self, risk: Risk) -> bool:
        return risk >= self.confirm_threshold

    def anchors_for(self, steps: list[ProposedStep] | list[Step]) -> frozenset[Anchor]:
        """The anchors a plan pauses at (the risky-step gate is not optional)."""
        if not self.dynamic_anchors:
            return self.anchors
        risky = any(self.is_risky(s.risk) for s in steps)
        if risky:
            return self.anchors
        if len(steps) <= 2:
            return self.anchors & {"before_result"}
        return self.anchors & {"after_plan", "before_result"}


# --- reviews and decisions -------------------------------------------------


InputType = Literal["choice", "text", "confirm"]
Priority = Literal["low", "normal", "high", "urgent"]


class Handoff(_Model):
    """A structured question a tool (or the loop itself) puts to a person."""

    prompt: str
    input_type: InputType = "text"
    options: list[str] = Field(default_factory=list)
    context: dict[str, Any] = Field(default_factory=dict)
    reason: str = ""
    priority: Priority = "normal"
    default: Any = None
    max_length: int = 3000
    call: int = 0

    def validate_answer(self, value: Any) -> Any:
        """The answer in its canonical form, or ValueError saying what is wrong."""
        if self.input_type == "choice":
            if not isinstance(value, str) or value not in self.options:
                raise ValueError(f"{value!r} is not one of the options: {', '.join(self.options)}")
            return value
        if self.input_type == "confirm":
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("yes", "y", "true", "confirm", "是", "确认"):
                return True
            if text in ("no", "n", "false", "否", "取消"):
                return False
            raise ValueError(f"{value!r} is not a yes or no")
        if not isinstance(value, str) or not value.strip():
            raise ValueError("the answer is empty; type an answer")
        if len(value) > self.max_length:
            raise ValueError(f"the answer is {len(value)} characters; the limit is {self.max_length}")
        return value.strip()


class Approval(_Model):
    by: str
    at: float
    digest: str | None = None


class Review(_Model):
    """A pending request for a person's decision. Its id is what buttons carry."""

    id: str
    anchor: Anchor
    step: int | None = None
    digest: str | None = None
    note: str | None = None
    created_at: float
    handoff: Handoff | None = None
    assignees: list[str] = Field(default_factory=list)
    assignee_index: int = 0
    quorum: int = 1
    approvals: list[Approval] = Field(default_factory=list)
    deadline: float | None = None
    remind_at: float | None = None
    strategy: Literal["cancel", "reassign", "use_default", "pause"] | None = None
    default: Any = None
    stale: bool = False
    escalated: bool = False

    @property
    def current_assignees(self) -> list[str]:
        """Who is asked right now (reassignment walks the list)."""
        if not self.assignees:
            return []
        return (
            [self.assignees[min(self.assignee_index, len(self.assignees) - 1)]] if self.reassigned else self.assignees
        )

    @property
    def reassigned(self) -> bool:
        return self.assignee_index > 0


class Approve(_Tagged):
    kind: Literal["approve"] = "approve"


class Cancel(_Tagged):
    kind: Literal["cancel"] = "cancel"
    reason: str = ""


class Correct(_Tagged):
    kind: Literal["correct"] = "correct"
    intent: Intent
    target_step: int | None = None
    feedback: str
    suggested_fix: str | None = None


class Instruct(_Tagged):
    """In human takeover: one instruction, which becomes at most one proposed step."""

    kind: Literal["instruct"] = "instruct"
    text: str


class Finish(_Tagged):
    kind: Literal["finish"] = "finish"


class HandBack(_Tagged):
    kind: Literal["hand_back"] = "hand_back"
    note: str = ""


class Answer(_Tagged):
    """The answer to a handoff (validated against its input type before it applies)."""

    kind: Literal["answer"] = "answer"
    value: Any


Decision = Annotated[Approve | Cancel | Correct | Instruct | Finish | HandBack | Answer, Field(discriminator="kind")]


class Reading(_Model):
    """How the classifier read a person's free text."""

    intent: Literal["approve", "cancel", "replan", "retry_step", "refine_output"]
    target_step: int | None = None
    reason: str = ""
    confidence: float = 0.5
    suggested_fix: str | None = None
    fallback: bool = False  # the model's answer was unreadable: the documented retry_step fallback

    def to_decision(self, text: str) -> Approve | Cancel | Correct:
        if self.intent == "approve":
            return Approve()
        if self.intent == "cancel":
            return Cancel(reason=text)
        return Correct(
            intent=self.intent, target_step=self.target_step, feedback=text, suggested_fix=self.suggested_fix
        )


class TakeoverReading(_Model):
    """How a person's instruction during takeover was read."""

    kind: Literal["step", "finish", "hand_back", "cancel", "unclear"]
    step: PlannedStep | None = None
    message: str = ""


# --- events (inputs) -------------------------------------------------------


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


# --- effects (outputs) -----------------------------------------------------


class MakePlan(_Tagged):
    kind: Literal["make_plan"] = "make_plan"


class RunStep(_Tagged):
    kind: Literal["run_step"] = "run_step"
    number: int


class ReviseStep(_Tagged):
    kind: Literal["revise_step"] = "revise_step"
    number: int
    feedback: str
    suggested_fix: str | None = None


class Summarize(_Tagged):
    kind: Literal["summarize"] = "summarize"


class RefineOutput(_Tagged):
    kind: Literal["refine_output"] = "refine_output"
    feedback: str


class ProposeStep(_Tagged):
    kind: Literal["propose_step"] = "propose_step"
    instruction: str


Work = Annotated[
    MakePlan | RunStep | ReviseStep | Summarize | RefineOutput | ProposeStep,
    Field(discriminator="kind"),
]


class AskHuman(_Tagged):
    kind: Literal["ask_human"] = "ask_human"
    review: Review


class Remind(_Tagged):
    """Nudge the people a review waits on (before its deadline, or when it went stale)."""

    kind: Literal["remind"] = "remind"
    review: Review
    text: str


class Notify(_Tagged):
    kind: Literal["notify"] = "notify"
    text: str


class Finished(_Tagged):
    kind: Literal["finished"] = "finished"
    status: Literal["done", "cancelled", "failed"]


Effect = Annotated[
    MakePlan | RunStep | ReviseStep | Summarize | RefineOutput | ProposeStep | AskHuman | Remind | Notify | Finished,
    Field(discriminator="kind"),
]


# --- the run ---------------------------------------------------------------


class Feedback(_Model):
    by: str
    at: float
    intent: str
    text: str
    step: int | None = None


class RunState(_Model):
    id: str
    task: str
    requester: str
    created_at: float
    updated_at: float
    phase: Phase = "planning"
    policy: Policy = Field(default_factory=Policy)
    anchors: frozenset[Anchor] = frozenset()
    plan: list[Step] = Field(default_factory=list)
    history: list[Step] = Field(default_factory=list)
    rejected_plans: list[list[PlannedStep]] = Field(default_factory=list)
    feedback: list[Feedback] = Field(default_factory=list)
    pending: Review | None = None
    inflight: Work | None = None
    return_anchor: Anchor | None = None
    retries: int = 0
    retry_step: int | None = None
    retry_failures: int = 0
    executed: int = 0
    planner_questions: int = 0
    takeover: bool = False
    takeover_reason: str | None = None
    finishing: bool = False
    output: str | None = None
    output_notes: list[str] = Field(default_factory=list)
    error: str | None = None
    channel: dict[str, str] = Field(default_factory=dict)

    @property
    def status(self) -> Status:
        if self.phase in ("done", "cancelled", "failed"):
            return self.phase
        if self.takeover:
            return "human_takeover"
        if self.phase in ("planning", "replanning"):
            return "planning"
        if self.phase == "awaiting_review":
            return "awaiting_review"
        return "executing"

    @property
    def finished(self) -> bool:
        return self.phase in TERMINAL

    def step(self, number: int) -> Step:
        for s in self.plan:
            if s.number == number:
                return s
        raise KeyError(number)


# --- persistence records -----------------------------------------------------


class AuditEvent(_Model):
    """One line of a run's append-only history: who did what, when."""

    at: float
    actor: str
    kind: str
    payload: dict[str, Any] = Field(default_factory=dict)


class ReviewRecord(_Model):
    """A review as stored, including how it was answered."""

    id: str
    run_id: str
    anchor: Anchor
    step: int | None = None
    status: Literal["pending", "answered", "closed"]
    created_at: float
    answered_at: float | None = None
    answered_by: str | None = None
    answer: dict[str, Any] | None = None


class RunSummary(_Model):
    id: str
    task: str
    requester: str
    status: Status
    created_at: float
    updated_at: float
    channel: dict[str, str] = Field(default_factory=dict)
    pending_review: str | None = None


class Rule(_Model):
    """ "Always allow <tool> in this channel": later calls skip the approval gate (still logged)."""

    id: str
    channel: str
    tool: str
    created_by: str
    created_at: float
