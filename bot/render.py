"""Decision lines rebuilt from a run's audit history."""

from __future__ import annotations

from agent.models import AuditEvent, Decided, Review
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
            event = Decided.model_validate({**e.payload, "at": e.at, "by": e.actor})
            lines.append(line_for(event, reviews.get(event.review_id)))
        elif e.kind == "cancel_requested":
            reason = str(e.payload.get("reason", ""))
            lines.append(DecisionLine(actor=e.actor, verb="Cancelled", at=e.at, detail=reason, outcome="cancelled"))
    return lines
