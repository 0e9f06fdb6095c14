"""Collaboration metrics: what the audit trail says about how people and the agent worked together.

A store computes :class:`Metrics` for a :class:`MetricsQuery` (``Store.metrics``). The runs
counted are those *started* in the window (and matching the filters); every figure is about
those runs, so a rate's numerator and denominator are always the same runs. Rates are
fractions (0.25 is 25 %); a rate with nothing to divide by is 0.
"""

from __future__ import annotations

from pydantic import ConfigDict, Field, model_validator

from agent.models.base import Model

__all__ = [
    "TIMEOUT_STRATEGIES",
    "AnchorLatency",
    "Corrections",
    "DayCount",
    "Metrics",
    "MetricsQuery",
    "ToolDecisions",
]

TIMEOUT_STRATEGIES: tuple[str, ...] = ("cancel", "reassign", "use_default", "pause", "degrade")


class _Figures(Model):
    model_config = ConfigDict(extra="forbid", frozen=True)


class MetricsQuery(_Figures):
    """A window ``[since, until)`` of Unix times, and optional filters."""

    since: float
    until: float
    channel: str | None = None
    requester: str | None = None
    tool: str | None = None  # runs in which a step of this tool was reviewed or ran

    @model_validator(mode="after")
    def _ordered(self) -> MetricsQuery:
        if self.until <= self.since:
            raise ValueError("the window must end after it starts (until > since)")
        return self

    def previous(self) -> MetricsQuery:
        """The period of equal length just before this one, with the same filters."""
        length = self.until - self.since
        return self.model_copy(update={"since": self.since - length, "until": self.since})


class Corrections(_Figures):
    """Corrections by what the person asked for (as given or as read from their words)."""

    replan: int = 0
    retry_step: int = 0
    refine_output: int = 0

    @property
    def total(self) -> int:
        return self.replan + self.retry_step + self.refine_output


class AnchorLatency(_Figures):
    """Seconds from a review being asked to its approval (nearest-rank percentiles)."""

    anchor: str
    approvals: int
    p50: float
    p90: float


class ToolDecisions(_Figures):
    """How people answered the approval gates of one tool's steps."""

    tool: str
    approved: int
    rejected: int  # corrected or cancelled at the gate
    changed: int = 0  # of which sent back with changes (Request changes, a correcting reply)
    cancelled: int = 0  # of which the run was cancelled
    approval_rate: float
    rejection_rate: float


class DayCount(_Figures):
    """One UTC day: runs started, corrections given and runs taken over that day."""

    day: str  # YYYY-MM-DD
    runs: int = 0
    corrections: int = 0
    takeovers: int = 0


class Metrics(_Figures):
    query: MetricsQuery
    runs: int
    corrected_runs: int
    correction_rate: float
    corrections: Corrections
    retries: int  # corrections the agent reworked (a correction that hands the run to a person is none)
    avg_retries: float
    takeovers: int  # runs a person took over
    takeover_rate: float
    correction_to_review: float | None = Field(
        default=None, description="mean seconds from a correction to the next review it led to"
    )
    approval_latency: list[AnchorLatency] = Field(default_factory=list)
    tools: list[ToolDecisions] = Field(default_factory=list)
    timeouts: dict[str, int] = Field(default_factory=dict)  # strategy -> deadlines that applied it
    reminders: int = 0  # deadlines that only reminded
    free_text_decisions: int = 0  # decisions read from people's words
    overrides: int = 0  # "Not what I meant"
    misread_rate: float = 0.0
    results_liked: int = 0  # 👍 on a finished run's result (each person's latest vote counts)
    results_disliked: int = 0  # 👎
    model_calls: int = 0
    model_calls_per_run: float = 0.0
    prompt_tokens: int | None = None  # None: no provider reported tokens for these runs
    completion_tokens: int | None = None
    tokens_per_run: float | None = None
    days: list[DayCount] = Field(default_factory=list)

    @property
    def timeout_total(self) -> int:
        return sum(self.timeouts.values())
