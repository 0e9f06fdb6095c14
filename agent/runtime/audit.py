"""What the audit log keeps of each transition: its event, the effects people see, and the model's use.

Payloads are short and JSON-ready. Besides what the event says, a few facts are written down
for the collaboration metrics (``storage.metrics``), so they are read from the trail and never
counted elsewhere:

* ``ask_human`` and ``step_finished`` name the ``tool`` of the step they are about;
* the ``decided`` line of the correction past the limit says it handed the run to a person
  (``takeover``: ``corrections``); runs recorded before that say so on their takeover's
  ``ask_human`` line (``cause``);
* a ``timed_out`` line says what the deadline did (``outcome``: the strategy, or ``remind``);
* a person's ``decided`` line at a risky step's gate names the call's shape (``gate``:
  ``restart_service(service=payments)``), which the "always allow" offer reads (``storage.streaks``);
* a plan approval that approved risky steps too (``agent.merge``) lists them (``with_plan``: step,
  tool and shape each). They had no gate of their own: no review was asked or answered for them, so
  the report's per-anchor and per-tool gate figures count only gates that asked, and the "always
  allow" streak (which reads ``gate``) neither grows nor breaks;
* ``model_usage`` follows the event a piece of work produced: model calls and, where the
  provider reported them, tokens.
"""

from __future__ import annotations

from typing import Any

from agent.models import (
    AskHuman,
    AuditEvent,
    CloseReview,
    Correct,
    Decided,
    Effect,
    Event,
    PlanProposed,
    Remind,
    Reopened,
    RunState,
    StepFinished,
    TimedOut,
    param_shape,
)
from agent.policy import TIMEOUT
from agent.usage import Tally

__all__ = ["AUDITED_EFFECTS", "audit_lines", "decided_of", "reopened_for", "usage_line"]

NOTES = ("gate", "takeover", "with_plan")
"""Keys a ``decided`` line carries beside its event's own fields (facts for later reads, not the event)."""

AUDITED_EFFECTS = (
    "ask_human",
    "finished",
    "notify",
    "remind",
    "close_review",
    "add_rule",
    "add_lesson",
    "suspend_rule",
)


def audit_lines(
    event: Event,
    actor: str,
    effects: list[Effect],
    before: RunState,
    after: RunState,
    used: Tally | None = None,
) -> list[AuditEvent]:
    """The lines one transition (``before`` -> ``after`` on ``event``) adds to the run's history."""
    payload = _event_payload(event, effects, before, after)
    lines = [AuditEvent(at=event.at, actor=actor, kind=event.kind, payload=payload)]
    if used is not None and used.calls:
        lines.append(usage_line(event.at, used))
    lines += [
        AuditEvent(at=event.at, actor="tandem", kind=e.kind, payload=_effect_payload(e, event, before, after))
        for e in effects
        if e.kind in AUDITED_EFFECTS
    ]
    return lines


def decided_of(line: AuditEvent) -> Decided:
    """The decision a ``decided`` audit line records, as the event it was."""
    fields = {k: v for k, v in line.payload.items() if k not in NOTES}
    return Decided.model_validate({**fields, "at": line.at, "by": line.actor})


def reopened_for(line: AuditEvent) -> str:
    """What a ``reopened`` line's correction said (the person's words)."""
    decision = line.payload.get("decision")
    return str(decision.get("feedback", "")) if isinstance(decision, dict) else ""


def usage_line(at: float, used: Tally) -> AuditEvent:
    return AuditEvent(at=at, actor="tandem", kind="model_usage", payload=used.payload())


def _event_payload(event: Event, effects: list[Effect], before: RunState, after: RunState) -> dict[str, Any]:
    data = event.model_dump(mode="json", exclude={"at", "nonce", "kind"}, exclude_defaults=True)
    match event:
        case StepFinished():
            if isinstance(data.get("result"), str) and len(data["result"]) > 200:
                data["result"] = data["result"][:200] + "…"
            tool = _tool(before, event.number)
            if tool is not None:
                data["tool"] = tool
        case PlanProposed():
            data = {"steps": [f"{s.tool}({', '.join(f'{k}={v}' for k, v in s.params.items())})" for s in event.steps]}
        case TimedOut():
            data["outcome"] = _timeout_outcome(effects)
        case Decided():
            gate = _gate_shape(before, event.review_id)
            if gate is not None:
                data["gate"] = gate
            if isinstance(event.decision, Correct) and after.takeover and not before.takeover:
                data["takeover"] = "corrections"  # the correction past the limit: a person takes over
            merged = _with_plan(before, after, event)
            if merged:
                data["with_plan"] = merged
        case Reopened():
            if after.takeover and not before.takeover:
                data["takeover"] = "corrections"  # reopened past the limit: a person takes over
        case _:
            pass
    return data


def _effect_payload(effect: Effect, event: Event, before: RunState, after: RunState) -> dict[str, Any]:
    if isinstance(effect, AskHuman):
        r = effect.review
        data: dict[str, Any] = {"review": r.id, "anchor": r.anchor}
        corrected = isinstance(event, Decided) and isinstance(event.decision, Correct)
        if r.anchor == "takeover" and corrected and not before.takeover:
            data["cause"] = "corrections"  # the correction limit, not a plan that could not be made
        if r.step:
            data["step"] = r.step
            tool = _tool(after, r.step)
            if tool is not None:
                data["tool"] = tool
        return data
    return effect.model_dump(mode="json", exclude={"kind"})


def _gate_shape(state: RunState, review_id: str) -> str | None:
    """The call shape a decision at a risky step's gate was about (None at any other review)."""
    review = state.pending
    if review is None or review.id != review_id or review.anchor != "before_risky_step" or review.step is None:
        return None
    try:
        step = state.step(review.step)
    except KeyError:
        return None
    return param_shape(step.tool, step.params)


def _with_plan(before: RunState, after: RunState, event: Decided) -> list[dict[str, Any]]:
    """The risky steps a person's approval of a plan approved too (bound to their digest by them)."""
    review = before.pending
    if review is None or review.id != event.review_id or review.anchor != "after_plan":
        return []
    was = {s.number: s.approved_digest for s in before.plan}
    return [
        {"step": s.number, "tool": s.tool, "shape": param_shape(s.tool, s.params)}
        for s in after.plan
        if s.approved_by == event.by and s.approved_digest == s.digest and was.get(s.number) != s.digest
    ]


def _tool(state: RunState, number: int) -> str | None:
    try:
        return state.step(number).tool
    except KeyError:
        return None


def _timeout_outcome(effects: list[Effect]) -> str:
    """What a deadline did, read from what the machine decided: its strategy, or only a reminder."""
    for e in effects:
        if isinstance(e, CloseReview) and e.by == TIMEOUT:
            return str((e.answer or {}).get("action") or "timeout")
    if any(isinstance(e, AskHuman) for e in effects):
        return "reassign"
    if any(isinstance(e, Remind) and e.review.stale for e in effects):
        return "pause"
    return "remind"
