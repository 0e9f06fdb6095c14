"""Who decided what, as channel-neutral lines: ``✅ Plan approved by @ana · 14:02: detail``.

One source for every channel: the run card's list of decisions (rebuilt from the audit
history), the line a review's message gains once it is answered (from the outbox row that
closed it, or from the stored answer), and ``status``. Each chat platform only draws a line;
what it says is decided here.
"""

from __future__ import annotations

import json
from typing import Literal, assert_never

from pydantic import BaseModel, ConfigDict, ValidationError

from agent.correction_messages import correction_said
from agent.messages import DECISION_SUBJECTS, decided_verb
from agent.models import (
    Answer,
    Approve,
    AuditEvent,
    Cancel,
    CancelRequested,
    Correct,
    Decided,
    Finish,
    HandBack,
    Instruct,
    ReviewClosed,
    ReviewDecided,
    ReviewRecord,
    TimedOut,
)
from agent.runtime.audit import decided_of, reopened_for

Outcome = Literal["approved", "rejected", "changes", "noted", "cancelled", "info"]
OUTCOME_ICONS: dict[Outcome, str] = {
    "approved": "✅",
    "rejected": "❌",
    "changes": "❌",
    "noted": "📝",
    "cancelled": "🛑",
    "info": "ℹ️",
}
MOVED_ON = "No longer open: the run moved on"


class DecisionLine(BaseModel):
    """One decision as people see it: an actor (None: nobody in particular), a verb, when, and a detail."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    actor: str | None
    verb: str
    at: float
    detail: str = ""
    outcome: Outcome = "info"


def line_for(event: Decided, anchor: str | None = None, step: int | None = None) -> DecisionLine:
    """The line for a decision on the review it answered (its anchor and step, if known). A rule's or a
    deadline's decision names no person."""
    line = _decision(event, anchor, step)
    if event.by.startswith("rule:"):
        return line.model_copy(update={"actor": None, "verb": f"{line.verb} by an always-allow rule"})
    if event.by.startswith("tandem"):
        return line.model_copy(update={"actor": None, "verb": f"{line.verb} (deadline passed)"})
    return line


def _decision(event: Decided, anchor: str | None, step: int | None) -> DecisionLine:
    subject = "Review"
    if anchor in DECISION_SUBJECTS:
        subject = DECISION_SUBJECTS[anchor].format(n=step if step is not None else "?")
    d, by, at = event.decision, event.by, event.at
    match d:
        case Approve():
            verb = "Continued past failed step" if anchor == "step_failed" else f"{subject} approved"
            return DecisionLine(actor=by, verb=verb, at=at, outcome="approved")
        case Correct():
            icon, verb = correction_said(d, anchor)
            outcome: Outcome = "changes" if icon == OUTCOME_ICONS["changes"] else "noted"
            return DecisionLine(actor=by, verb=verb, at=at, detail=d.feedback, outcome=outcome)
        case Cancel():
            return DecisionLine(actor=by, verb="Cancelled", at=at, detail=d.reason, outcome="cancelled")
        case Instruct():
            return DecisionLine(actor=by, verb="Instruction", at=at, detail=d.text)
        case Finish():
            return DecisionLine(actor=by, verb="Asked to finish", at=at)
        case HandBack():
            return DecisionLine(actor=by, verb="Handed back", at=at, detail=d.note)
        case Answer() if d.declined:
            return DecisionLine(actor=by, verb="Declined to answer", at=at, outcome="rejected")
        case Answer():
            value = d.value if isinstance(d.value, str) else json.dumps(d.value, ensure_ascii=False, default=str)
            return DecisionLine(actor=by, verb="Answered", at=at, detail=value, outcome="approved")
        case _:
            assert_never(d)


def decision_lines(events: list[AuditEvent]) -> list[DecisionLine]:
    """Who decided what, oldest first, rebuilt from the run's audit history."""
    asked: dict[str, tuple[str, int | None]] = {}
    lines: list[DecisionLine] = []
    for e in events:
        if e.kind == "ask_human":
            asked[str(e.payload.get("review"))] = (str(e.payload.get("anchor")), e.payload.get("step"))
        elif e.kind == "decided":
            event = decided_of(e)
            lines.append(line_for(event, *asked.get(event.review_id, (None, None))))
        elif e.kind == "timed_out" and e.payload.get("action") in ("cancel", "use_default"):
            verb = (
                "Cancelled: nobody decided in time" if e.payload["action"] == "cancel" else "Continued with the default"
            )
            lines.append(DecisionLine(actor=None, verb=verb, at=e.at))
        elif e.kind == "cancel_requested":
            reason = str(e.payload.get("reason", ""))
            lines.append(DecisionLine(actor=e.actor, verb="Cancelled", at=e.at, detail=reason, outcome="cancelled"))
        elif e.kind == "reopened":
            lines.append(DecisionLine(actor=e.actor, verb="Reopened", at=e.at, detail=reopened_for(e)))
    return lines


def closing_line(
    message: ReviewDecided | ReviewClosed, anchor: str | None, step: int | None, at: float
) -> DecisionLine:
    """The line a review's message gains when the outbox row ``message`` (written at ``at``) closes it: what
    the run's transition said happened."""
    event = message.event if isinstance(message, ReviewDecided) else None
    match event:
        case Decided():
            return line_for(event, anchor, step)
        case CancelRequested():
            return DecisionLine(actor=event.by, verb="Cancelled", at=event.at, detail=event.reason, outcome="cancelled")
        case TimedOut():
            return DecisionLine(actor=None, verb="Decided by the deadline: nobody answered in time", at=event.at)
        case _:
            return DecisionLine(actor=None, verb=MOVED_ON, at=at)


def record_line(record: ReviewRecord) -> DecisionLine:
    """The line a decided review's message ends with, from the stored answer."""
    at = record.answered_at or record.created_at
    try:
        event = Decided(at=at, review_id=record.id, decision=record.answer, by=record.answered_by or "tandem")
    except ValidationError:  # closed without an answer (the run moved on), or an answer of an older release
        verb = decided_verb(record.answer).capitalize() if record.answer else MOVED_ON
        return DecisionLine(actor=None, verb=verb, at=at)
    return line_for(event, record.anchor, record.step)
