"""The run as JSON: a stable interface that scripts rely on."""

from __future__ import annotations

from typing import Any

from agent.models import AuditEvent, RunState, Step, plain_mention, render_mentions
from agent.outcome import outcome


def _prose(text: str | None) -> str | None:
    """Prose the core wrote, with people named as ``@id`` (JSON readers get no channel markup)."""
    return None if text is None else render_mentions(text, plain_mention)


def _step(step: Step) -> dict[str, Any]:
    return {
        "number": step.number,
        "tool": step.tool,
        "params": step.params,
        "risk": step.risk.label,
        "reason": step.reason,
        "status": step.status,
        "result": step.result,
        "error": step.error,
        "timed_out": step.timed_out,
        "attempts": step.attempts,
        "approved_by": step.approved_by,
    }


def run_json(state: RunState, events: list[AuditEvent] | None = None) -> dict[str, Any]:
    pending = None
    if state.pending is not None:
        p = state.pending
        pending = {"id": p.id, "anchor": p.anchor, "step": p.step, "note": _prose(p.note), "created_at": p.created_at}
    return {
        "id": state.id,
        "task": state.task,
        "requester": state.requester,
        "origin": state.origin.model_dump(mode="json"),
        "status": state.status,
        "outcome": ended.line() if (ended := outcome(state)) is not None else None,
        "phase": state.phase,
        "pending_review": pending,
        "retries": state.retries,
        "max_retries": state.policy.max_retries,
        "takeover": state.takeover,
        "takeover_reason": state.takeover_reason,
        "plan": [{"tool": s.tool, "params": s.params, "reason": s.reason, "risk": s.risk.label} for s in state.plan],
        "steps": [_step(s) for s in state.plan],
        "history": [_step(s) for s in state.history],
        "output": _prose(state.output),
        "not_done": list(state.not_done),
        "error": _prose(state.error),
        "feedback": [f.model_dump(mode="json") for f in state.feedback],
        "lessons_applied": [
            {
                "id": u.id,
                "text": u.line,
                "by": u.by,
                "at": u.at,
                **({"forgotten_by": u.forgotten_by} if u.forgotten_by else {}),
            }
            for u in state.lessons_applied
        ],
        "created_at": state.created_at,
        "updated_at": state.updated_at,
        "events": [e.model_dump(mode="json") for e in events or []],
    }
