"""Signed webhooks: a decided handoff POSTed to its ``callback_url`` (an outbox row, :class:`HandoffWebhook`).

The body is the handoff as ``GET /api/v1/handoffs/{id}`` shows it, plus ``event_id``. The signature is
HMAC-SHA256 with the asking token's webhook secret over ``timestamp + "." + body``::

    X-Tandem-Event-Id: evt_3f2a9c1d7e40
    X-Tandem-Timestamp: 1796405172
    X-Tandem-Signature: v1=<hex>

A 2xx is delivered; a 4xx other than 408 and 429 is refused for good (the row fails, visible in the outbox and
the log); anything else, or no answer within :data:`TIMEOUT`, is tried again with the outbox's backoff. The event
id stays the same on every try: receivers drop the ones they have seen (delivery is at least once).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Callable, Mapping

import aiohttp

from agent.asking import handoff_view
from agent.delivery import DeliveryFailed, DeliveryWorker
from agent.errors import UnknownRun
from agent.models import Delivery, Form, HandoffWebhook
from agent.ports import Change, Store

TIMEOUT = 10.0
"""Seconds a receiver has to answer one POST before it counts as failed (and is tried again)."""
TOLERANCE = 300.0
"""Seconds :func:`verify` accepts between a webhook's timestamp and now (older ones could be replays)."""


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """``v1=`` and the hex HMAC-SHA256 of ``timestamp + "." + body`` under ``secret``."""
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"v1={digest}"


def verify(secret: str, headers: Mapping[str, str], body: bytes, *, now: float | None = None) -> bool:
    """Whether ``body`` with ``headers`` is a webhook Tandem signed with ``secret`` within :data:`TOLERANCE`
    seconds of ``now`` (for receivers: pass the raw body, before parsing it)."""
    timestamp = headers.get("X-Tandem-Timestamp", "")
    given = headers.get("X-Tandem-Signature", "")
    try:
        age = abs((time.time() if now is None else now) - int(timestamp))
    except ValueError:
        return False
    return age <= TOLERANCE and hmac.compare_digest(signature(secret, timestamp, body), given)


class WebhookSender:
    """Sends the ``webhook`` outbox channel's rows (a :class:`~agent.delivery.Sender`); as a runtime observer it
    wakes its ``worker`` when a run ends, so a decision's webhook leaves at once rather than at the next poll."""

    def __init__(self, store: Store, session: aiohttp.ClientSession, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.session = session
        self.clock = clock
        self.worker: DeliveryWorker | None = None

    async def on_change(self, change: Change) -> None:
        if self.worker is not None and change.state.finished:
            self.worker.wake()

    async def send(self, delivery: Delivery, *, uncertain: bool, form: Form = "full") -> None:
        message = delivery.message
        if not isinstance(message, HandoffWebhook):
            raise DeliveryFailed(f"the webhook channel cannot send a {message.kind!r} message", permanent=True)
        body, secret = await self._body(delivery.run_id, message)
        timestamp = str(int(self.clock()))
        headers = {
            "Content-Type": "application/json",
            "User-Agent": "tandem-webhook/1",
            "X-Tandem-Event-Id": message.event_id,
            "X-Tandem-Timestamp": timestamp,
            "X-Tandem-Signature": signature(secret, timestamp, body),
        }
        try:
            async with self.session.post(
                message.url, data=body, headers=headers, timeout=aiohttp.ClientTimeout(total=TIMEOUT)
            ) as answer:
                status = answer.status
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise DeliveryFailed(f"POST {message.url} failed: {type(exc).__name__} {exc}".strip()) from None
        if 200 <= status < 300:
            return
        permanent = 400 <= status < 500 and status not in (408, 429)
        raise DeliveryFailed(f"POST {message.url} answered {status}", permanent=permanent)

    async def _body(self, run_id: str, message: HandoffWebhook) -> tuple[bytes, str]:
        kept = await self.store.asked(run_id)
        tokens = await self.store.list_tokens() if kept is not None else []
        token = next((t for t in tokens if kept is not None and t.name == kept.token), None)
        if token is None:
            raise DeliveryFailed(f"handoff {run_id} or its token is no longer stored", permanent=True)
        try:
            state, _ = await self.store.load(run_id)
        except UnknownRun:
            raise DeliveryFailed(f"handoff {run_id} is no longer stored", permanent=True) from None
        shown = (await handoff_view(self.store, state)).model_dump(mode="json")
        body = json.dumps({**shown, "event_id": message.event_id}, separators=(",", ":")).encode()
        return body, token.webhook_secret
