"""A run's card comes first: a message of the run waits for it, and threads under it once it exists.

A run is stored before its card is posted (the card is the first row of its outbox), so a channel
delivering any other message of the run asks here where the thread is. While the card is on its way
the message waits (no attempt counted); once the card was given up on, the message cannot go out.
"""

from __future__ import annotations

from agent.delivery import DeliveryDeferred, DeliveryFailed
from agent.models import RunState
from agent.ports import OutboxStore

CARD_WAIT = 0.25
"""Seconds a message of a run waits before it looks again whether the run's card is posted."""
NO_THREAD = "the run's card was never posted, so the run has no thread to post in"


async def wait_for_card(store: OutboxStore, state: RunState) -> None:
    """Return when the run's thread exists; else raise: :class:`DeliveryDeferred` while its card is on its way,
    a permanent :class:`DeliveryFailed` once the card was given up on (the requester is told, see
    :mod:`agent.runtime.unshown`)."""
    if state.origin.thread is not None:
        return
    if await store.delivery_status(state.id, "started", None) in ("pending", "sending"):
        raise DeliveryDeferred(CARD_WAIT)
    raise DeliveryFailed(NO_THREAD, permanent=True)
