"""Decision lines rebuilt from a run's audit history."""

from __future__ import annotations

from agent.models import AuditEvent, Review
from agent.runtime.audit import decided_of, reopened_for
from blocks.decided import DecisionLine, line_for


def decision_lines(events: list[AuditEvent]) -> list[DecisionLine]:
    """Who decided what, oldest first, rebuilt from the audit history."""
    reviews: dict[str, Review] = {}
    lines: list[DecisionLine] = []
    for e in events:
        if e.kind == "ask_human":
            review_id = str(e.payload.get("review"))
            reviews[review_id] = Review(
                id=review_id, anchor=e.payload["anchor"], step=e.payload.get("step"), created_at=e.at
            )
        elif e.kind == "decided":
            event = decided_of(e)
            line = line_for(event, reviews.get(event.review_id))
            if e.actor.startswith("rule:"):
                line = line.model_copy(update={"actor": None, "verb": f"{line.verb} by an always-allow rule"})
            elif e.actor.startswith("tandem"):
                line = line.model_copy(update={"actor": None, "verb": f"{line.verb} (deadline passed)"})
            lines.append(line)
        elif e.kind == "timed_out" and e.payload.get("action") in ("cancel", "use_default"):
            verb = (
                "Cancelled: nobody decided in time" if e.payload["action"] == "cancel" else "Continued with the default"
            )
            lines.append(DecisionLine(actor=None, verb=verb, at=e.at, outcome="info"))
        elif e.kind == "cancel_requested":
            reason = str(e.payload.get("reason", ""))
            lines.append(DecisionLine(actor=e.actor, verb="Cancelled", at=e.at, detail=reason, outcome="cancelled"))
        elif e.kind == "reopened":
            lines.append(DecisionLine(actor=e.actor, verb="Reopened", at=e.at, detail=reopened_for(e), outcome="info"))
    return lines
