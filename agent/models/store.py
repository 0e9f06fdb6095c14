"""What a store hands back besides runs and reviews: small records instead of bare tuples."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import ConfigDict, Field

from agent.models.base import Model

if TYPE_CHECKING:
    from agent.models.outbox import Outgoing
    from agent.models.run import RunState

__all__ = [
    "Answered",
    "Claim",
    "DueReview",
    "Lease",
    "LeaseClaim",
    "Loaded",
    "Outbound",
    "PostedMessage",
    "PruneCounts",
    "ScheduledPost",
]


class _Record(Model):
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


class ScheduledPost(_Record):
    """A report post: where it goes and the period ``[since, until)`` it covers. ``key`` is unique:
    one post per channel and scheduled time (``agent.weekly``), however many processes schedule it."""

    key: str
    channel: str
    since: float
    until: float
    manual: bool = False


class DueReview(_Record):
    """A pending review whose reminder time or deadline has come."""

    review_id: str
    run_id: str


class PruneCounts(_Record):
    """Rows deleted (or, with ``dry_run``, that would be deleted), by table."""

    before: float
    dry_run: bool
    rows: dict[str, int]


# --- what a commit takes and a load gives: named, typed, and still unpacked like tuples --------


class Loaded(NamedTuple):
    """A run as stored, and the version a commit must name to change it."""

    state: RunState
    version: int


class Answered(NamedTuple):
    """The pending review a commit answers: compare-and-set, so a second answer is stale."""

    review_id: str
    by: str
    at: float
    answer: dict[str, Any]


class Outbound(NamedTuple):
    """Messages a commit writes to the outbox of ``channel``, delivered after it."""

    channel: str
    messages: Sequence[Outgoing]


class LeaseClaim(NamedTuple):
    """The lease a commit takes on the run's work in flight: whose, and until when (a Unix time)."""

    owner: str
    until: float
