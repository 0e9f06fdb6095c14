"""Effects: the loop's outputs. ``Work`` is what the runtime performs and feeds back as an
event; the rest (ask a person, remind, notify, finished) go to the channels."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from agent.models.base import Tagged
from agent.models.lessons import Lesson
from agent.models.policy import Anchor
from agent.models.reviews import Review
from agent.models.rules import Rule, RuleSuspension


class MakePlan(Tagged):
    kind: Literal["make_plan"] = "make_plan"
    # A replan asked by a correction: where it was made, and the retry count before it. A new plan that is
    # the same as the one corrected goes back to that review with nothing counted.
    anchor: Anchor | None = None
    review_step: int | None = None
    was_retrying: int | None = None
    was_failures: int = 0


class RunStep(Tagged):
    kind: Literal["run_step"] = "run_step"
    number: int


class ReviseStep(Tagged):
    kind: Literal["revise_step"] = "revise_step"
    number: int
    feedback: str
    suggested_fix: str | None = None
    # Where the correction was made, and the retry count before it: a revision that cannot be applied
    # goes back to that review with nothing counted.
    anchor: Anchor | None = None
    review_step: int | None = None
    was_retrying: int | None = None
    was_failures: int = 0


class Summarize(Tagged):
    kind: Literal["summarize"] = "summarize"


class RefineOutput(Tagged):
    kind: Literal["refine_output"] = "refine_output"
    feedback: str


class ProposeStep(Tagged):
    kind: Literal["propose_step"] = "propose_step"
    instruction: str


class MatchRule(Tagged):
    """Look up a standing rule for a gated step (a read; the answer comes back as ``RuleChecked``)."""

    kind: Literal["match_rule"] = "match_rule"
    number: int


Work = Annotated[
    MakePlan | RunStep | ReviseStep | Summarize | RefineOutput | ProposeStep | MatchRule,
    Field(discriminator="kind"),
]


class AskHuman(Tagged):
    kind: Literal["ask_human"] = "ask_human"
    review: Review


class Remind(Tagged):
    """Nudge the people a review waits on (before its deadline, or when it went stale)."""

    kind: Literal["remind"] = "remind"
    review: Review
    text: str


class Notify(Tagged):
    kind: Literal["notify"] = "notify"
    text: str


class CloseReview(Tagged):
    """A review stops being pending: answered (``by`` and ``answer`` set) or moot (the run moved on)."""

    kind: Literal["close_review"] = "close_review"
    review_id: str
    by: str | None = None
    answer: dict[str, Any] | None = None


class Reschedule(Tagged):
    """The pending review's reminder or deadline changed."""

    kind: Literal["reschedule"] = "reschedule"
    review_id: str
    deadline: float | None = None
    remind_at: float | None = None


class AddRule(Tagged):
    """Store a standing "always allow" rule (in the same transaction as the approval that made it)."""

    kind: Literal["add_rule"] = "add_rule"
    rule: Rule


class AddLesson(Tagged):
    """Store what an applied correction taught (in the same transaction as the transition that applied it)."""

    kind: Literal["add_lesson"] = "add_lesson"
    lesson: Lesson


class SuspendRule(Tagged):
    """Suspend a standing rule (kept, no longer applied), in the transaction of the correction that caused it."""

    kind: Literal["suspend_rule"] = "suspend_rule"
    suspension: RuleSuspension


class Finished(Tagged):
    kind: Literal["finished"] = "finished"
    status: Literal["done", "cancelled", "failed"]


Effect = Annotated[
    MakePlan
    | RunStep
    | ReviseStep
    | Summarize
    | RefineOutput
    | ProposeStep
    | MatchRule
    | AskHuman
    | Remind
    | Notify
    | CloseReview
    | Reschedule
    | AddRule
    | AddLesson
    | SuspendRule
    | Finished,
    Field(discriminator="kind"),
]
