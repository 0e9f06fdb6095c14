"""One base exception for the agent package.

Failures (something went wrong and a person should hear about it) derive from
:class:`TandemError`. Each carries a message meant for people: what happened
and what to do next.
"""

from __future__ import annotations

from agent.refusal import Refusal


class TandemError(Exception):
    """Base of every failure Tandem reports to a person."""


class ToolError(TandemError):
    """A tool could not be found, validated or run."""


class UnknownTool(ToolError):
    pass


class InvalidParams(ToolError):
    pass


class LLMError(TandemError):
    """The model could not be reached or never gave a usable answer."""


class PlanError(LLMError):
    """The planner produced no valid plan (unknown tool, bad params, bad JSON)."""


class ReviseError(LLMError):
    """The step reviser produced no valid parameters."""


class RunError(TandemError):
    """A request about a run that cannot be carried out."""


class UnknownRun(RunError):
    pass


class RunExists(RunError):
    """A run was created with an id already taken (by another process asking the same thing at once):
    nothing was written."""


class NoPendingReview(RunError):
    pass


class StaleDecision(RunError):
    """A decision arrived for a review that is no longer pending."""

    def __init__(self, message: str, *, decided_by: str | None = None, decided_at: float | None = None) -> None:
        super().__init__(message)
        self.decided_by = decided_by
        self.decided_at = decided_at


class InvalidDecision(RunError):
    """The decision does not fit the anchor it answers."""


class NeedsClarification(InvalidDecision):
    """Free text was not read clearly enough to act on: the person is asked what they meant."""


class UseTheButton(InvalidDecision):
    """Free text may not approve this review (an exec or deploy gate): its own button, or ``--approve``, does."""

    def __init__(self, message: str, *, review_id: str) -> None:
        super().__init__(message)
        self.review_id = review_id


class NotAllowed(RunError):
    """The policy does not let this person make this decision."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.describe())
        self.refusal = refusal


class ConcurrentUpdate(RunError):
    """Someone else advanced the run first (optimistic concurrency)."""


class ConfigError(TandemError):
    pass


class PolicyError(ConfigError):
    """The policy (its file or a ``TANDEM_POLICY__`` override) cannot be used; the message names the key."""
