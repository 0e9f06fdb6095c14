"""Slack requests through the inbox (:mod:`agent.inbox`): kept before Bolt acks them, replayed after a crash.

What is kept, by a key Slack gives each request:

* a click (``block_actions``): the clicker, the action's ``action_ts`` and id, and the message clicked;
* a submitted form (``view_submission``): the view, its hash and what it holds (a form sent back with
  errors and submitted again holds something else);
* an event (a thread reply, a mention): the message's channel and ``ts`` (Slack sends a ``message`` and an
  ``app_mention`` for one post: the second is a duplicate), else its ``event_id``;
* a slash command: its ``trigger_id``, only to know it again (a replay would start a second run).

A request whose key is taken is a duplicate (a retry, a replay): acked, and nothing more.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest

from agent import inbox
from agent.inbox import LEASE, Receipt, Replay
from agent.models.inbox import Inbound
from agent.ports import InboxStore
from bot.tasks import Background

SOURCE = "slack"
REPLAYED = ("block_actions", "view_submission", "event_callback")


def kind_of(body: dict[str, Any]) -> str:
    """A request's ``type``, or ``slash_command``."""
    kind = body.get("type")
    return kind if isinstance(kind, str) else "slash_command" if "command" in body else ""


def inbox_key(body: dict[str, Any], kind: str) -> str | None:
    """The key that tells this request from any other, or None for requests that change nothing (or that
    Bolt will refuse: a body read over Socket Mode has not passed :mod:`bot.envelope`)."""
    try:
        return _key(body, kind)
    except (KeyError, IndexError, TypeError, AttributeError):
        return None


def _key(body: dict[str, Any], kind: str) -> str | None:
    if kind == "slash_command":
        trigger = body.get("trigger_id")
        return f"slack:command:{trigger}" if isinstance(trigger, str) and trigger else None
    if kind == "block_actions":
        action = body["actions"][0]
        user = (body.get("user") or {}).get("id") if isinstance(body.get("user"), dict) else body.get("user")
        where = (body.get("container") or {}).get("message_ts") or (body.get("view") or {}).get("id")
        return f"slack:action:{user}:{action.get('action_ts')}:{action['action_id']}:{where}"
    if kind == "view_submission":
        view = body["view"]
        held = hashlib.sha256(json.dumps(view.get("state"), sort_keys=True).encode()).hexdigest()[:16]
        return f"slack:view:{view.get('id')}:{view.get('hash')}:{held}"
    if kind == "event_callback":
        event = body["event"]
        channel, ts = event.get("channel"), event.get("ts")
        if event.get("type") in ("message", "app_mention") and isinstance(channel, str) and isinstance(ts, str):
            return f"slack:message:{channel}:{ts}"
        event_id = body.get("event_id")
        return f"slack:event:{event_id}" if isinstance(event_id, str) and event_id else None
    return None


class SlackInbox:
    """Keeps requests before their ack (:meth:`keep`); :meth:`replayer` dispatches a kept one again."""

    def __init__(
        self, store: InboxStore, background: Background, clock: Callable[[], float], lease: float = LEASE
    ) -> None:
        self.store, self.background, self.clock, self.lease = store, background, clock, lease

    async def keep(self, body: dict[str, Any], kind: str, text: str | None = None) -> Receipt | bool:
        """The receipt of a request kept for its work; True for one only remembered (a slash command) or
        not kept (it changes nothing); False for a duplicate. ``text``: the JSON ``body`` was read from, kept
        as it came (encoding a click's ~10 kB again would cost its ack ~0.05 ms)."""
        key = inbox_key(body, kind)
        if key is None:
            return True
        replayed = kind in REPLAYED
        item = Inbound(
            key=key,
            source=SOURCE,
            body=(text if text is not None else json.dumps(body)) if replayed else "",
            received_at=self.clock(),
            status="pending" if replayed else "done",
        )
        return await inbox.keep(self.store, item, self.clock, self.background, self.lease)

    def replayer(self, app: AsyncApp) -> Replay:
        async def replay(item: Inbound) -> None:
            # As Socket Mode hands a body over: already read, its signature checked when it was received.
            request = AsyncBoltRequest(body=json.loads(item.body), context={"logger": app.logger}, mode="socket_mode")
            await app.async_dispatch(request)

        return replay
