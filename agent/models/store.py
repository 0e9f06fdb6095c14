"""What a store hands back besides runs and reviews: small records instead of bare tuples."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field

from agent.models.base import _Model

__all__ = ["Claim", "DueReview", "Lease", "PostedMessage", "PruneCounts"]


class _Record(_Model):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PostedMessage(_Record):
    """A message Tandem posted and keeps a handle on (to update it later)."""

    channel: str
    ts: str
    blocks: list[dict[str, Any]] = Field(default_factory=list)


class Lease(_Record):
    """Who works on a run, and until when their claim holds (a Unix time)."""

    owner: str
    until: float


class Claim(_Record):
    """The outcome of claiming an outbox row: ``uncertain`` when an earlier claim died mid-send
    (its message may or may not have gone out)."""

    claimed: bool
    uncertain: bool = False


class DueReview(_Record):
    """A pending review whose reminder time or deadline has come."""

    review_id: str
    run_id: str


class PruneCounts(_Record):
    """Rows deleted (or, with ``dry_run``, that would be deleted), by table."""

    before: float
    dry_run: bool
    rows: dict[str, int]
