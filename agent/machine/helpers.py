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
    Notify,
    Phase,
    ProposeStep,
    RefineOutput,
    Review,
    ReviseStep,
    RunState,
    RunStep,
    Summarize,
)

Result = tuple[RunState, list[Effect]]


def _work(
    s: RunState,
    work: MakePlan | RunStep | ReviseStep | Summarize | RefineOutput | ProposeStep | MatchRule,
    phase: Phase,
) -> Result:
    s.inflight = work
    s.phase = phase
    return s, [work]


def _ask(
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


def _finish(s: RunState, status: Literal["done", "cancelled", "failed"], *, note: str | None = None) -> Result:
    s.phase = status
    s.pending = None
    s.inflight = None
    s.learning = None
    effects: list[Effect] = [Notify(text=note)] if note else []
    effects.append(Finished(status=status))
    return s, effects


def _takeover(s: RunState, event: Event, reason: str) -> Result:
    s.takeover = True
    s.takeover_reason = reason
    s.learning = None  # what a person does from here is not a correction of the plan
    s.retry_step = None
    s.retry_failures = 0
    return _ask(s, event, "takeover")
