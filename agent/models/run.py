"""The run: its phase, plan, pending review, work in flight and the feedback it was given."""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import Field, model_validator

from agent.models.base import Model
from agent.models.effects import Work
from agent.models.lessons import LessonIntent, LessonUse
from agent.models.origin import AnyOrigin, Terminal, legacy_origin
from agent.models.policy import Anchor, Policy
from agent.models.reviews import LastAsked, Review
from agent.models.steps import PlannedStep, Step

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
WORKING: tuple[Status, ...] = tuple(s for s in get_args(Status) if s not in TERMINAL and s != "awaiting_review")
"""The statuses of a run that is working, not waiting on a person: what recovery looks at. Listed (not "none of
the others"), so the store finds them by its status index instead of reading every run it ever kept."""


class Feedback(Model):
    by: str
    at: float
    intent: str
    text: str
    step: int | None = None


class Learning(Model):
    """A correction being applied: it becomes a lesson once its result (new values, a new plan, a new
    text) lands, and is dropped when it cannot be applied."""

    id: str
    anchor: Anchor
    intent: LessonIntent
    text: str
    by: str
    at: float


class RunState(Model):
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
    not_done: list[str] = Field(default_factory=list)
    """The task's words for each part no step did, as the result was written ("check errors")."""
    error: str | None = None
    cancelled_by: str | None = None  # who cancelled the run (None: nobody, or a deadline)
    cancel_reason: str = ""  # what they said with it
    origin: AnyOrigin = Field(default_factory=Terminal)
    learning: Learning | None = None
    lessons_applied: list[LessonUse] = Field(default_factory=list)
    asked: LastAsked | None = None  # the last review asked, for what the next one shows (see agent.evidence)

    @model_validator(mode="before")
    @classmethod
    def _origin_of_old_runs(cls, data: Any) -> Any:
        """Runs stored before origins existed carry ``channel`` (``{"channel", "thread_ts"}`` or ``{}``)."""
        if isinstance(data, dict) and "channel" in data:
            data = dict(data)
            channel = data.pop("channel")
            if "origin" not in data:
                data["origin"] = legacy_origin(channel if isinstance(channel, dict) else {})
        return data

    def at_thread(self, thread: str | None) -> RunState:
        """The run as its store knows it: where its card was posted (``thread``, kept beside the run) fills in
        an origin stored before the card existed."""
        if thread is None or self.origin.thread is not None:
            return self
        return self.model_copy(update={"origin": self.origin.at_thread(thread)})

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
