"""One-line texts of what happened to a run (who decided what, what it does now), as Feishu markdown."""

from __future__ import annotations

from typing import assert_never

from pydantic import ValidationError

from agent.correction_messages import correction_said
from agent.messages import DECISION_SUBJECTS, decided_verb
from agent.models import (
    Answer,
    Approve,
    AuditEvent,
    Cancel,
    Correct,
    Decided,
    Delivery,
    Finish,
    HandBack,
    Instruct,
    ReviewRecord,
    RunState,
    utc_time,
)
from agent.runtime.audit import decided_of, reopened_for
from feishu.wording import clip, escape, who


def _line(icon: str, verb: str, by: str | None, at: float, detail: str = "") -> str:
    text = f"{icon} {verb}" + (f" by {who(by)}" if by else "") + f" · {utc_time(at)}"
    if detail:
        text += ": " + escape(clip(" ".join(detail.split()), 200))
    return text


def decision_line(event: Decided, anchor: str | None, step: int | None) -> str:
    """``✅ Plan approved by @ana · 14:02`` for one decision."""
    subject = next((v for k, v in DECISION_SUBJECTS.items() if k == anchor), "Review")
    subject = subject.format(n=step if step is not None else "?")
    by = None if event.by.startswith(("rule:", "tandem")) else event.by
    d = event.decision
    match d:
        case Approve():
            verb = "Continued past failed step" if anchor == "step_failed" else f"{subject} approved"
            if event.by.startswith("rule:"):
                verb += " by an always-allow rule"
            return _line("✅", verb, by, event.at)
        case Correct():
            return _line(*correction_said(d, anchor), by, event.at, d.feedback)
        case Cancel():
            return _line("🛑", "Cancelled", by, event.at, d.reason)
        case Instruct():
            return _line("ℹ️", "Instruction", by, event.at, d.text)
        case Finish():
            return _line("ℹ️", "Asked to finish", by, event.at)
        case HandBack():
            return _line("ℹ️", "Handed back", by, event.at, d.note)
        case Answer():
            return _line("✅", "Answered", by, event.at, str(d.value))
        case _:
            assert_never(d)


def decision_lines(events: list[AuditEvent]) -> list[str]:
    """Who decided what, oldest first, from the run's audit history."""
    asked: dict[str, tuple[str, int | None]] = {}
    lines: list[str] = []
    for e in events:
        if e.kind == "ask_human":
            asked[str(e.payload.get("review"))] = (str(e.payload.get("anchor")), e.payload.get("step"))
        elif e.kind == "decided":
            event = decided_of(e)
            anchor, step = asked.get(event.review_id, (None, None))
            lines.append(decision_line(event, anchor, step))
        elif e.kind == "cancel_requested":
            lines.append(_line("🛑", "Cancelled", e.actor, e.at, str(e.payload.get("reason", ""))))
        elif e.kind == "reopened":
            lines.append(_line("🔁", "Reopened", e.actor, e.at, reopened_for(e)))
    return lines


def record_line(record: ReviewRecord) -> str:
    """The line a decided review's card ends with, from the stored answer."""
    at = record.answered_at or record.created_at
    try:
        event = Decided(at=at, review_id=record.id, decision=record.answer, by=record.answered_by or "tandem")
    except ValidationError:  # closed without an answer (the run moved on), or an answer of an older release
        verb = decided_verb(record.answer).capitalize() if record.answer else "No longer open: the run moved on"
        return _line("ℹ️", verb, None, at)
    return decision_line(event, record.anchor, record.step)


def delivery_line(delivery: Delivery, record: ReviewRecord | None) -> str:
    """The line for a ``decided`` or ``closed`` outbox row (what the run's transition said happened)."""
    data = delivery.message.data.get("event")
    kind = data.get("kind") if isinstance(data, dict) else None
    if kind == "decided":
        event = Decided.model_validate(data)
        return decision_line(event, record.anchor if record else None, record.step if record else None)
    if kind == "cancel_requested" and isinstance(data, dict):
        return _line("🛑", "Cancelled", str(data.get("by") or "") or None, float(data.get("at") or 0))
    if kind == "timed_out" and isinstance(data, dict):
        return _line("ℹ️", "Decided by the deadline: nobody answered in time", None, float(data.get("at") or 0))
    return _line("ℹ️", "No longer open: the run moved on", None, delivery.created_at)


def status_detail(state: RunState) -> str:
    """What the run is doing right now, in a few words."""
    if state.pending is not None and not state.finished:
        step = f" on step {state.pending.step}" if state.pending.step is not None else ""
        return f"waiting for a decision{step}"
    running = next((s.number for s in state.plan if s.status == "running"), None)
    if state.phase == "executing" and running is not None:
        return f"running step {running} of {len(state.plan)}"
    return {"planning": "drafting a plan", "replanning": "drafting a new plan", "summarizing": "writing up"}.get(
        state.phase, ""
    )
