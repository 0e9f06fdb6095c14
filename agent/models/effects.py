"""Effects: the loop's outputs. ``Work`` is what the runtime performs and feeds back as an
event; the rest (ask a person, remind, notify, finished) go to the channels."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from agent.models.base import _Tagged
from agent.models.reviews import Review


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
