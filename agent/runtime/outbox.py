"""Which messages a transition causes: a pure function of the transition, written in its commit."""

from __future__ import annotations

from agent.models import (
    WEBHOOK,
    AskHuman,
    CardRefresh,
    CloseReview,
    Decided,
    Effect,
    Event,
    Finished,
    HandoffWebhook,
    MailNotice,
    NewsLine,
    Notify,
    Outbound,
    Outgoing,
    ReadAs,
    Remind,
    Reminder,
    ReviewAsked,
    ReviewClosed,
    ReviewDecided,
    ReviewEscalated,
    ReviewReassigned,
    RunEnded,
    RunState,
)


def delivery_channel(state: RunState) -> str | None:
    """The channel that shows this run to people, or None for a run nobody follows in a chat."""
    return state.origin.channel


def outbound(state: RunState, messages: list[Outgoing]) -> Outbound | None:
    """What a commit leaving the run at ``state`` writes to the outbox: every message, for a run followed in a
    chat; for a run nobody follows in one (asked in the web inbox, started at a terminal) only those no chat
    delivers, its webhook and its mail, since the software that asked is told and people are reminded however
    the question is answered (None: nothing to write)."""
    shown_in = delivery_channel(state)
    if shown_in is not None:
        return Outbound(shown_in, messages)
    elsewhere: list[Outgoing] = [m for m in messages if isinstance(m, HandoffWebhook | MailNotice)]
    return Outbound(WEBHOOK, elsewhere) if elsewhere else None  # (each row goes to its own channel: channel_of)


def needs_card(state: RunState) -> bool:
    """Whether the run is followed in a chat whose thread does not exist yet: its card is still to be posted
    (every other message of the run waits for it, and threads under it)."""
    return state.origin.channel is not None and state.origin.thread is None


def outgoing_for(before: RunState | None, event: Event | None, effects: list[Effect]) -> list[Outgoing]:
    """The messages one transition causes, in the order people should read them; the card comes last."""
    out: list[Outgoing] = []
    if isinstance(event, Decided) and event.reading is not None:
        out.append(ReadAs(review_id=event.review_id, reading=event.reading, by=event.by))
    was = before.pending.id if before is not None and before.pending is not None else None
    for e in effects:
        match e:
            case CloseReview() if e.by is not None:
                out.append(ReviewDecided(review_id=e.review_id, event=event))
            case CloseReview():
                out.append(ReviewClosed(review_id=e.review_id))
            case AskHuman() if e.review.escalated:
                out.append(ReviewEscalated(review_id=e.review.id))
                out.append(MailNotice(review_id=e.review.id, about="escalate"))
            case AskHuman() if e.review.id == was:
                out.append(ReviewReassigned(review_id=e.review.id))
            case AskHuman():
                out.append(ReviewAsked(review_id=e.review.id))
            case Remind():
                out.append(Reminder(review_id=e.review.id, text=e.text))
                out.append(MailNotice(review_id=e.review.id, about="remind", text=e.text))
            case Notify():
                out.append(NewsLine(text=e.text))
            case Finished():
                out.append(RunEnded(status=e.status))
                out.extend(_webhook(before))
            case _:
                pass
    out.append(CardRefresh())
    return out


def _webhook(before: RunState | None) -> list[Outgoing]:
    """The signed POST a handoff asked with a ``callback_url`` gains as it is decided (its run ends once: one
    event id per handoff, the same on every retry)."""
    if before is None or before.pending is None or before.pending.handoff is None:
        return []
    url = before.pending.handoff.callback_url
    return [] if url is None else [HandoffWebhook(url=url, event_id=f"evt_{before.id}")]
