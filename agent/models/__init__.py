"""The loop's vocabulary: risk, steps, reviews, decisions, events, effects, run state.

Everything here is plain data (pydantic models with a ``kind`` tag). The state
machine in :mod:`agent.machine` turns ``(state, event)`` into ``(state, effects)``.

One module per concern; import from ``agent.models``, which re-exports them all:

* :mod:`~agent.models.risk`: how much harm a tool can do.
* :mod:`~agent.models.steps`: planned, proposed and running steps.
* :mod:`~agent.models.policy`: the anchors a run pauses at and its limits.
* :mod:`~agent.models.reviews`: reviews and the handoff questions they carry.
* :mod:`~agent.models.decisions`: what a person decides, and readings of free text.
* :mod:`~agent.models.events`: the loop's inputs.
* :mod:`~agent.models.effects`: the loop's outputs.
* :mod:`~agent.models.origin`: where a run lives (its origin) and who people are (principals).
* :mod:`~agent.models.run`: the run state.
* :mod:`~agent.models.records`: what storage keeps beside the run.
"""

from agent.models.base import _Model, _Tagged
from agent.models.decisions import (
    Answer,
    Approve,
    Cancel,
    Correct,
    Decision,
    Finish,
    HandBack,
    Instruct,
    Intent,
    Reading,
    TakeoverReading,
)
from agent.models.effects import (
    AddLesson,
    AddRule,
    AskHuman,
    CloseReview,
    Effect,
    Finished,
    MakePlan,
    MatchRule,
    Notify,
    ProposeStep,
    RefineOutput,
    Remind,
    Reschedule,
    ReviseStep,
    RunStep,
    Summarize,
    SuspendRule,
    Work,
)
from agent.models.events import (
    CancelRequested,
    Decided,
    Event,
    OutputReady,
    PlanFailed,
    PlanProposed,
    PlanQuestion,
    Recovered,
    ReviseFailed,
    RuleChecked,
    StepFinished,
    StepPaused,
    StepProposedEvent,
    StepRevised,
    TimedOut,
    _Event,
)
from agent.models.lessons import AddedStep, Lesson, LessonIntent, LessonUse
from agent.models.origin import (
    FeishuChat,
    Origin,
    Platform,
    Principal,
    SlackThread,
    Terminal,
    is_group,
    mention,
    moment,
    plain_mention,
    render_mentions,
    utc_time,
)
from agent.models.outbox import Delivery, Outgoing, OutgoingKind
from agent.models.policy import CONFIGURABLE_ANCHORS, Anchor, Policy
from agent.models.records import AuditEvent, ReviewRecord, Rule, RunSummary
from agent.models.reviews import Approval, Handoff, InputType, Priority, Review
from agent.models.risk import Risk
from agent.models.rules import AlwaysOffer, GateDecision, RuleSuspension, param_shape
from agent.models.run import TERMINAL, Feedback, Learning, Phase, RunState, Status
from agent.models.steps import PlannedStep, ProposedStep, Step, StepStatus, params_digest
from agent.models.store import (
    Answered,
    Claim,
    DueReview,
    Lease,
    LeaseClaim,
    Loaded,
    Outbound,
    PostedMessage,
    PruneCounts,
    ScheduledPost,
)

__all__ = [
    "ScheduledPost",
    "Answered",
    "LeaseClaim",
    "Loaded",
    "Outbound",
    "FeishuChat",
    "Origin",
    "Platform",
    "Principal",
    "SlackThread",
    "Terminal",
    "is_group",
    "mention",
    "moment",
    "plain_mention",
    "render_mentions",
    "utc_time",
    "CONFIGURABLE_ANCHORS",
    "TERMINAL",
    "Anchor",
    "Answer",
    "Approval",
    "Approve",
    "AddLesson",
    "AddRule",
    "AddedStep",
    "Lesson",
    "LessonIntent",
    "LessonUse",
    "Learning",
    "AlwaysOffer",
    "AskHuman",
    "AuditEvent",
    "Cancel",
    "Claim",
    "CloseReview",
    "CancelRequested",
    "Correct",
    "Decided",
    "Decision",
    "Delivery",
    "DueReview",
    "Effect",
    "Event",
    "Feedback",
    "Finish",
    "Finished",
    "GateDecision",
    "HandBack",
    "Handoff",
    "InputType",
    "Instruct",
    "Intent",
    "Lease",
    "MakePlan",
    "MatchRule",
    "Notify",
    "Outgoing",
    "OutgoingKind",
    "OutputReady",
    "Phase",
    "PlanFailed",
    "PlanProposed",
    "PlanQuestion",
    "PlannedStep",
    "Policy",
    "PostedMessage",
    "PruneCounts",
    "Priority",
    "ProposeStep",
    "ProposedStep",
    "Reading",
    "Recovered",
    "RefineOutput",
    "Remind",
    "Reschedule",
    "Review",
    "ReviewRecord",
    "ReviseFailed",
    "ReviseStep",
    "Risk",
    "Rule",
    "RuleChecked",
    "RuleSuspension",
    "RunState",
    "RunStep",
    "RunSummary",
    "Status",
    "Step",
    "StepFinished",
    "SuspendRule",
    "StepPaused",
    "StepProposedEvent",
    "StepRevised",
    "StepStatus",
    "Summarize",
    "TakeoverReading",
    "TimedOut",
    "Work",
    "_Event",
    "_Model",
    "_Tagged",
    "param_shape",
    "params_digest",
]
