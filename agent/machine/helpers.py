"""How the machine's handlers end: start work, ask a person, finish the run, or hand it to a person."""

from __future__ import annotations

from typing import Literal

from agent.evidence import note_asked
from agent.models import (
    Anchor,
    AskHuman,
    Effect,
    Event,
    Finished,
    Handoff,
    MakePlan,
    MatchRule,
    Phase,
    PlannedStep,
    ProposeStep,
    RefineOutput,
    Review,
    ReviseStep,
    RunState,
    RunStep,
    Summarize,
)

Result = tuple[RunState, list[Effect]]


def start_work(
    s: RunState,
    work: MakePlan | RunStep | ReviseStep | Summarize | RefineOutput | ProposeStep | MatchRule,
    phase: Phase,
) -> Result:
    s.inflight = work
    s.phase = phase
    return s, [work]


def ask_person(
    s: RunState,
    event: Event,
    anchor: Anchor,
    step: int | None = None,
    *,
    digest: str | None = None,
    note: str | None = None,
    handoff: Handoff | None = None,
) -> Result:
    review = Review(
        id=event.nonce,
        anchor=anchor,
        step=step,
        digest=digest,
        note=note,
        created_at=event.at,
        handoff=handoff,
        evidence=note_asked(s, anchor, step),
    )
    s.pending = review
    s.inflight = None
    s.phase = "human_takeover" if s.takeover else "awaiting_review"
    return s, [AskHuman(review=review)]


def finish_run(
    s: RunState, status: Literal["done", "cancelled", "failed"], *, by: str | None = None, why: str = ""
) -> Result:
    """The run ends. Who cancelled it and why are kept on the run, for the one line that says it ended."""
    s.phase = status
    s.pending = None
    s.inflight = None
    s.learning = None
    if status == "cancelled":
        s.cancelled_by, s.cancel_reason = by, why
    return s, [Finished(status=status)]


def take_over(s: RunState, event: Event, reason: str) -> Result:
    enter_takeover(s, reason)
    return ask_person(s, event, "takeover")


def enter_takeover(s: RunState, reason: str) -> None:
    """A person steers from here. The plan's steps that have not run are set aside (kept as a rejected
    plan, so a hand-back replans knowing them): the person's steps go on from the last number that ran."""
    s.takeover = True
    s.takeover_reason = reason
    s.learning = None  # what a person does from here is not a correction of the plan
    s.retry_step = None
    s.retry_failures = 0
    unrun = [x for x in s.plan if x.status == "pending"]
    if unrun:
        aside = [PlannedStep(tool=x.tool, params=x.params, reason=x.reason) for x in unrun]
        if not s.rejected_plans or s.rejected_plans[-1] != aside:
            s.rejected_plans.append(aside)
        s.plan = [x for x in s.plan if x.status != "pending"]
