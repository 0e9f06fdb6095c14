"""Messages a transition causes, as data: written in the transition's own transaction, delivered after.

They are channel-neutral: what happened, not how it looks. Each channel renders them
its own way when it delivers them (and reads the run's state as it is by then).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from agent.models.base import Model

OutgoingKind = Literal[
    "started",  # the run card, posted where the run was asked for: the run's first message, its thread's root
    "not_started",  # the run card could not be posted: tell the requester, out of the thread that never was
    "review",  # a new review to show, with its buttons
    "reassigned",  # the pending review now waits on someone else
    "escalate",  # nobody decided in time: tell the escalation channel
    "decided",  # a review was answered: show who decided, drop its buttons
    "closed",  # a review became moot (the run moved on): drop its buttons
    "redrawn",  # the pending review's message is drawn again from the run as it is now (a lesson was forgotten)
    "remind",  # nudge the people a review waits on
    "notify",  # a line of news in the run's thread
    "read_as",  # how a person's free text was read (before what it caused)
    "finished",  # the run ended
    "card",  # the run card shows the run as it is now (coalesced)
    "clarify",  # Tandem was not sure what a reply meant and asks
    "undelivered",  # tell the escalation channel that a message could not be delivered
    "weekly_report",  # the collaboration report with its chart, in the policy's report channel (no run)
]


Form = Literal["full", "short", "text"]
"""How much of a message a channel renders: all of it; a summary with the choices and *Show details*;
text alone that says how to answer (no buttons). Shorter forms are for messages a channel refused."""
FORMS: tuple[Form, ...] = ("full", "short", "text")


class Outgoing(Model):
    kind: OutgoingKind
    review_id: str | None = None
    text: str = ""
    data: dict[str, Any] = Field(default_factory=dict)


class Delivery(Model):
    """An outgoing message as stored, with how its delivery went."""

    id: int
    run_id: str
    channel: str
    message: Outgoing
    status: Literal["pending", "sent", "failed"]
    attempts: int = 0
    created_at: float
    next_at: float
    sent_at: float | None = None
    error: str | None = None
