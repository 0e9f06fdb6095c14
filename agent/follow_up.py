"""A reply in the thread of a run that has finished: one use case for every chat platform and the terminal.

A run that changed nothing is delivered as done without a result review, so its thread stays
open: a reply there is read as it would have been at that review. A correction (a presentation
wish, a wrong direction, a wrong value) reopens the run and is applied as usual; an approval
("thanks", "ok") or a stop changes nothing; a reply Tandem cannot read surely is asked about.
Who may reopen a run is who may correct it, checked before anything is written (or a model is
asked); which runs reopen is the policy's call (:meth:`agent.policy.SafetyPolicy.reopen_refusal`).
"""

from __future__ import annotations

from dataclasses import dataclass

from agent import messages
from agent.errors import NotAllowed, TandemError
from agent.models import Correct, Reading
from agent.usecases import Applied, NotApplied, Refused, UseCases


@dataclass(frozen=True)
class Unchanged:
    """The reply changed nothing (an approval or a stop of a done run, a reply not read surely, a run that
    does not reopen); ``message`` tells the person why and what they can do."""

    message: str
    reading: Reading | None = None


FollowUpOutcome = Applied | Unchanged | Refused | NotApplied


async def follow_up(uc: UseCases, run_id: str, text: str, by: str, *, rejecting: bool = False) -> FollowUpOutcome:
    """Read ``text``, said by ``by`` in the thread of the finished run ``run_id``, and apply it.

    ``rejecting``: it came as a request for changes (``--reject``), so it is never taken as an approval.
    """
    runtime = uc.runtime
    try:
        state, _ = await uc.store.load(run_id)
    except TandemError as exc:
        return NotApplied(str(exc))
    groups = await uc.groups_of(by)
    refusal = runtime.safety.may_reopen(state, by, groups)
    if refusal is not None:
        return Refused(refusal)
    why_not = runtime.safety.reopen_refusal(state, runtime.clock())
    if why_not is not None:
        return Unchanged(why_not)
    try:
        reading = await runtime.read_follow_up(run_id, text)
    except TandemError as exc:
        return NotApplied(str(exc))
    if runtime.unsure(reading):
        return Unchanged(
            messages.FOLLOW_UP_UNSURE.format(intent=reading.intent, confidence=reading.confidence, run=run_id), reading
        )
    if reading.intent == "approve":
        template = messages.FOLLOW_UP_NOT_A_CORRECTION if rejecting else messages.FOLLOW_UP_NOTED
        return Unchanged(template.format(run=run_id), reading)
    if reading.intent == "cancel":
        return Unchanged(messages.FOLLOW_UP_NOTHING_TO_STOP.format(run=run_id), reading)
    decision = reading.to_decision(text)
    assert isinstance(decision, Correct)
    try:
        state = await runtime.reopen(run_id, decision, by, groups=groups, reading=reading)
    except NotAllowed as exc:
        return Refused(exc.refusal)
    except TandemError as exc:
        return NotApplied(str(exc))
    return Applied(state, reading)


async def reopen(uc: UseCases, run_id: str, decision: Correct, by: str) -> FollowUpOutcome:
    """Reopen the finished run ``run_id`` with a correction stated outright (``--reject TEXT --intent …``)."""
    try:
        state = await uc.runtime.reopen(run_id, decision, by, groups=await uc.groups_of(by))
    except NotAllowed as exc:
        return Refused(exc.refusal)
    except TandemError as exc:
        return NotApplied(str(exc))
    return Applied(state)
