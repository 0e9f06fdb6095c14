"""Persistence records: the audit log, stored reviews, run listings and standing rules."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from agent.models.base import Model
from agent.models.policy import Anchor
from agent.models.reviews import Review
from agent.models.rules import Rule
from agent.models.run import Status

__all__ = ["AuditEvent", "ReviewRecord", "Rule", "RunSummary"]


class AuditEvent(Model):
    """One line of a run's append-only history: who did what, when."""

    at: float
    actor: str
    kind: str
    payload: dict[str, Any] = Field(default_factory=dict)


class ReviewRecord(Model):
    """A review as stored, including how it was answered."""

    id: str
    run_id: str
    anchor: Anchor
    step: int | None = None
    status: Literal["pending", "answered", "closed"]
    created_at: float
    answered_at: float | None = None
    answered_by: str | None = None
    answer: dict[str, Any] | None = None

    def as_review(self) -> Review:
        """The review as it was asked (what a channel needs to render or mark it)."""
        return Review(id=self.id, anchor=self.anchor, step=self.step, created_at=self.created_at)


class RunSummary(Model):
    id: str
    task: str
    requester: str
    status: Status
    created_at: float
    updated_at: float
    scope: str | None = None  # where the run lives (its origin's scope: a channel or chat id); None for the terminal
    pending_review: str | None = None
