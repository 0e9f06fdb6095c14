"""Messages a transition causes, as data: written in the transition's own transaction, delivered after.

They are channel-neutral: what happened, not how it looks. Each kind is its own typed model, decoded
once when a row is read (:func:`decode_outgoing`); each channel renders them its own way when it
delivers them (and reads the run's state as it is by then).
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, TypeAdapter

from agent.models.base import Model, Tagged
from agent.models.decisions import Reading
from agent.models.events import Event


class RunStarted(Tagged):
    """The run card, posted where the run was asked for: the run's first message, its thread's root."""

    kind: Literal["started"] = "started"
    review_id: None = None


class NotStarted(Tagged):
    """The run card could not be posted: tell the requester, out of the thread that never was."""

    kind: Literal["not_started"] = "not_started"
    review_id: None = None
    error: str
    stopped: bool = True  # the run was stopped for it (False: it had ended on its own meanwhile)


class ReviewAsked(Tagged):
    """A new review to show, with its buttons."""

    kind: Literal["review"] = "review"
    review_id: str


class ReviewReassigned(Tagged):
    """The pending review now waits on someone else."""

    kind: Literal["reassigned"] = "reassigned"
    review_id: str


class ReviewEscalated(Tagged):
    """Nobody decided in time: tell the escalation channel."""

    kind: Literal["escalate"] = "escalate"
    review_id: str


class ReviewDecided(Tagged):
    """A review was answered: show who decided (``event``, the transition's own event), drop its buttons."""

    kind: Literal["decided"] = "decided"
    review_id: str
    event: Event | None = None


class ReviewClosed(Tagged):
    """A review became moot (the run moved on): drop its buttons."""

    kind: Literal["closed"] = "closed"
    review_id: str


class ReviewRedrawn(Tagged):
    """The pending review's message is drawn again from the run as it is now (a lesson was forgotten)."""

    kind: Literal["redrawn"] = "redrawn"
    review_id: str
    fresh: bool = False
    """Drawn on a new message, the old one saying where it went: the old card can soon no longer be clicked
    (a platform's ``card_lifetime``). A channel whose messages never go stale draws it again in place."""


class Reminder(Tagged):
    """Nudge the people a review waits on."""

    kind: Literal["remind"] = "remind"
    review_id: str
    text: str


class NewsLine(Tagged):
    """A line of news in the run's thread (about a review, when it answers one)."""

    kind: Literal["notify"] = "notify"
    review_id: str | None = None
    text: str


class ReadAs(Tagged):
    """How a person's free text was read (before what it caused)."""

    kind: Literal["read_as"] = "read_as"
    review_id: str
    reading: Reading
    by: str = ""


class ClarifyAsked(Tagged):
    """Tandem was not sure what a reply meant and asks."""

    kind: Literal["clarify"] = "clarify"
    review_id: str
    reading: Reading
    text: str = ""  # what the person wrote
    anchor: str = ""
    can_approve: bool = True  # the question's own "Approve" (never where a reply may not approve)


class RunEnded(Tagged):
    """The run ended."""

    kind: Literal["finished"] = "finished"
    review_id: None = None
    status: Literal["done", "cancelled", "failed"]


class CardRefresh(Tagged):
    """The run card shows the run as it is now (coalesced: one pending refresh per run)."""

    kind: Literal["card"] = "card"
    review_id: None = None


class Undelivered(Tagged):
    """Tell the escalation channel that a message (row ``of``) could not be delivered."""

    kind: Literal["undelivered"] = "undelivered"
    review_id: str | None = None
    error: str
    of: int | None = None


class WeeklyReport(Tagged):
    """The collaboration report with its chart, in a report channel (no run)."""

    kind: Literal["weekly_report"] = "weekly_report"
    review_id: None = None
    key: str
    channel: str
    since: float
    until: float
    late_by: float = 0.0
    timezone: str = "UTC"
    manual: bool = False


class HandoffWebhook(Tagged):
    """A handoff asked through the API was decided: POST it, signed, to the caller's ``url``.

    Only the address and the event id are stored; the body is the handoff as the API shows it, read from
    the run at send time (the run has ended, so it no longer changes), and the signature is made then with
    the asking token's webhook secret (never copied into the outbox). Delivered on :data:`WEBHOOK`."""

    kind: Literal["webhook"] = "webhook"
    review_id: None = None
    url: str
    event_id: str


WEBHOOK = "webhook"
"""The outbox channel of :class:`HandoffWebhook` rows, whatever channel shows the run."""


class MailNotice(Tagged):
    """A reminder or an escalation, also by mail to the people the review waits on whose address is known
    (and to the address an ``email:`` handoff was asked at). Who exactly is worked out at send time; where mail
    is not set up the row is let go unsent. Delivered on :data:`MAIL`."""

    kind: Literal["mail"] = "mail"
    review_id: str
    about: Literal["remind", "escalate"]
    text: str = ""


MAIL = "email"
"""The outbox channel of mail: :class:`MailNotice` rows, and every row of a run asked at an ``email:`` address."""


def channel_of(message: Outgoing, shown_in: str) -> str:
    """The outbox channel that delivers ``message`` of a run shown in ``shown_in``."""
    if isinstance(message, HandoffWebhook):
        return WEBHOOK
    return MAIL if isinstance(message, MailNotice) else shown_in


_RENAMED_TEXT = {"not_started": "error", "undelivered": "error", "weekly_report": "key"}
"""Kinds whose ``text`` had a meaning of its own before messages were typed."""


def _from_older_rows(raw: Any) -> Any:
    """Rows written before messages were typed carry ``text`` and a ``data`` dict: lift them into fields."""
    if not isinstance(raw, dict) or ("data" not in raw and raw.get("kind") not in _RENAMED_TEXT):
        return raw
    kind = str(raw.get("kind"))
    lifted = {k: v for k, v in raw.items() if k != "data"}
    lifted.update(raw.get("data") or {})
    if kind in _RENAMED_TEXT and _RENAMED_TEXT[kind] not in raw:
        lifted[_RENAMED_TEXT[kind]] = lifted.pop("text", "")
    return lifted


Outgoing = Annotated[
    RunStarted
    | NotStarted
    | ReviewAsked
    | ReviewReassigned
    | ReviewEscalated
    | ReviewDecided
    | ReviewClosed
    | ReviewRedrawn
    | Reminder
    | NewsLine
    | ReadAs
    | ClarifyAsked
    | RunEnded
    | CardRefresh
    | Undelivered
    | WeeklyReport
    | HandoffWebhook
    | MailNotice,
    Field(discriminator="kind"),
    BeforeValidator(_from_older_rows),
]
OutgoingKind = Literal[
    "started",
    "not_started",
    "review",
    "reassigned",
    "escalate",
    "decided",
    "closed",
    "redrawn",
    "remind",
    "notify",
    "read_as",
    "finished",
    "card",
    "clarify",
    "undelivered",
    "weekly_report",
    "webhook",
    "mail",
]


@cache
def _adapter() -> TypeAdapter[Outgoing]:
    # Built on first use, not at import: a process that only resumes a run writes messages and never reads one.
    return TypeAdapter(Outgoing)


def decode_outgoing(raw: str | bytes) -> Outgoing:
    """An outbox row's message, typed (rows of older releases included)."""
    return _adapter().validate_json(raw)


def encode_outgoing(message: Outgoing) -> str:
    """How an outbox row stores ``message`` (its ``kind`` always kept)."""
    return message.model_dump_json(exclude_defaults=True)


Form = Literal["full", "short", "text"]
"""How much of a message a channel renders: all of it; a summary with the choices and *Show details*;
text alone that says how to answer (no buttons). Shorter forms are for messages a channel refused."""
FORMS: tuple[Form, ...] = ("full", "short", "text")


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
