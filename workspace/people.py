"""The person side: what alice, bob and carol do, turned into Slack's signed requests.

Every action records what Slack would record (a posted message, an issued
trigger_id, a response_url), builds the payload Slack would send, signs it and
POSTs it to the bot's events URL, then applies the bot's HTTP answer the way
Slack does (an immediate command reply becomes a message; a view_submission
``response_action`` closes, updates, pushes or shows errors on the modal).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import aiohttp

from workspace import chat, payloads, views
from workspace.errors import ScenarioError, SlackFailure
from workspace.models import BOT_USER_ID, ApiCall, Message
from workspace.payloads import Values
from workspace.socket_mode import SocketHub
from workspace.state import WorkspaceState
from workspace.transport import ACK_TIMEOUT, Delivery, Forgery, Kind, send, signed_headers
from workspace.transport import decode_reply as _decode

FORM = "application/x-www-form-urlencoded"
JSON = "application/json"


class Workspace:
    """A local Slack workspace: its state, its Web API address, and its people."""

    def __init__(
        self,
        state: WorkspaceState,
        *,
        base_url: str,
        signing_secret: str,
        bot_token: str,
        session: aiohttp.ClientSession,
        events_url: str | None = None,
        ack_timeout: float = ACK_TIMEOUT,
        socket: SocketHub | None = None,
    ) -> None:
        self.state = state
        self.socket = socket  # Socket Mode: used while no events_url is set and an app is connected
        self.base_url = base_url.rstrip("/")
        self.signing_secret = signing_secret
        self.bot_token = bot_token
        self.events_url = events_url
        self.ack_timeout = ack_timeout
        self._session = session

    @property
    def api_url(self) -> str:
        """What ``AsyncWebClient(base_url=...)`` takes, with the trailing slash."""
        return f"{self.base_url}/api/"

    # -- interactions ----------------------------------------------------------------------

    async def slash_command(
        self,
        user: str,
        channel: str,
        text: str = "",
        *,
        command: str = "/tandem",
        forge: Forgery | None = None,
        client: str | None = None,
    ) -> Delivery:
        person, place = self.state.user(user), self.state.channel(channel)
        hook = self.state.issue_hook(person.id, place.id)
        form = payloads.slash_command(
            user=person,
            channel=place,
            command=command,
            text=text,
            trigger_id=self.state.issue_trigger(person.id, client),
            response_url=self._hook_url(hook.id),
        )
        delivery = await self._send("slash_command", urlencode(form), FORM, dict(form), forge)
        if delivery.status == 200 and delivery.body.strip():
            reply = _decode(delivery.body) or {}
            delivery.error = self._apply(lambda: chat.apply_response(self.state, hook, reply))
        return delivery

    async def click(
        self,
        user: str,
        channel: str,
        message_ts: str,
        action_id: str,
        value: str | None = None,
        *,
        forge: Forgery | None = None,
        client: str | None = None,
    ) -> Delivery:
        """Press a button (or pick an option) on a message or on one of the user's ephemerals.

        ``client`` names the browser session it came from (see :meth:`WorkspaceState.open_modals`)."""
        person, place = self.state.user(user), self.state.channel(channel)
        message = self.state.find_message(place.id, message_ts)
        ephemeral = next((e for e in self.state.ephemerals_for(person.id) if e.ts == message_ts), None)
        if message is None and ephemeral is None:
            raise ScenarioError(f"{person.name} sees no message {message_ts} in #{place.name}")
        blocks = message.blocks if message is not None else ephemeral.blocks if ephemeral else []
        block_id, element = payloads.find_element(blocks, action_id)
        hook = self.state.issue_hook(person.id, place.id, message_ts=message_ts, is_ephemeral=message is None)
        payload = payloads.block_actions(
            user=person,
            container={
                "type": "message",
                "message_ts": message_ts,
                "channel_id": place.id,
                "is_ephemeral": message is None,
            },
            action=payloads.action(element, block_id=block_id, value=value, action_ts=self.state.next_ts()),
            trigger_id=self.state.issue_trigger(person.id, client),
            channel=place,
            message=message.to_slack() if message is not None else None,
            response_url=self._hook_url(hook.id),
        )
        return await self._send_interaction("block_actions", payload, forge)

    async def click_in_view(
        self,
        user: str,
        view_id: str,
        action_id: str,
        value: str | None = None,
        *,
        forge: Forgery | None = None,
        client: str | None = None,
    ) -> Delivery:
        """Press a button in an open modal or on the user's App Home."""
        person, view = self.state.user(user), self.state.view(view_id)
        if view.user != person.id or not view.open:
            raise ScenarioError(f"{person.name} has no open view {view_id}")
        block_id, element = payloads.find_element(view.blocks, action_id)
        payload = payloads.block_actions(
            user=person,
            container={"type": "view", "view_id": view.id},
            action=payloads.action(element, block_id=block_id, value=value, action_ts=self.state.next_ts()),
            trigger_id=self.state.issue_trigger(person.id, client),
            view=view.to_slack(),
        )
        return await self._send_interaction("block_actions", payload, forge)

    async def submit_view(
        self,
        user: str,
        view_id: str,
        values: Values | None = None,
        *,
        state_values: dict[str, dict[str, Any]] | None = None,
        forge: Forgery | None = None,
        client: str | None = None,
    ) -> Delivery:
        """Fill the modal's inputs (by block_id or action_id) and press Submit.

        ``state_values`` sends ``view.state.values`` verbatim instead, skipping
        the checks Slack's client makes (required inputs, known options).
        """
        person, view = self.state.user(user), self.state.view(view_id)
        stack = self.state.modal_stacks.get(person.id, [])
        if view.user != person.id or not stack or stack[-1] != view.id:
            raise ScenarioError(f"{person.name} is not looking at modal {view_id}")
        view.values = state_values if state_values is not None else payloads.input_values(view.blocks, values or {})
        view.errors = {}
        payload = payloads.view_submission(
            user=person, view=view.to_slack(), trigger_id=self.state.issue_trigger(person.id, client)
        )
        delivery = await self._send_interaction("view_submission", payload, forge)
        if delivery.status == 200:
            reply = _decode(delivery.body)
            delivery.error = self._apply(lambda: views.apply_submission(self.state, view, reply))
        return delivery

    async def close_view(self, user: str, view_id: str) -> Delivery | None:
        """Press a modal's Close: it goes back one view (or clears all with ``clear_on_close``).

        The bot hears ``view_closed`` only when the view asked for it (``notify_on_close``).
        """
        person, view = self.state.user(user), self.state.view(view_id)
        stack = self.state.modal_stacks.get(person.id, [])
        if view.user != person.id or view.id not in stack:
            raise ScenarioError(f"{person.name} has no open modal {view_id}")
        cleared = bool(view.spec.get("clear_on_close"))
        views.close(self.state, view, clear=cleared)
        self.state.changes.bump()
        if not view.spec.get("notify_on_close"):
            return None
        payload = payloads.view_closed(user=person, view=view.to_slack(), is_cleared=cleared)
        return await self._send_interaction("view_closed", payload, None)

    # -- messages and events ---------------------------------------------------------------

    async def post(
        self, user: str, channel: str, text: str, *, thread_ts: str | None = None, forge: Forgery | None = None
    ) -> Delivery:
        """Say something in a channel (or thread); the bot gets a ``message`` event."""
        message = self._store(user, channel, text, thread_ts)
        parent = self.state.find_message(message.channel, message.thread_ts) if message.thread_ts else None
        place = self.state.channel(message.channel)
        event = payloads.message_event(message, channel=place, parent_user=parent.user if parent else None)
        return await self.deliver(event, forge=forge)

    async def reply_in_thread(
        self, user: str, channel: str, thread_ts: str, text: str, *, forge: Forgery | None = None
    ) -> Delivery:
        if self.state.find_message(channel, thread_ts) is None:
            raise ScenarioError(f"no message {thread_ts} to reply to in {channel}")
        return await self.post(user, channel, text, thread_ts=thread_ts, forge=forge)

    async def mention(
        self, user: str, channel: str, text: str, *, thread_ts: str | None = None, forge: Forgery | None = None
    ) -> Delivery:
        """Say ``@tandem text``. As Slack does for an app subscribed to channel messages, the bot gets the
        post twice: a ``message`` event, then an ``app_mention`` (the answer returned is the mention's)."""
        tag = f"<@{BOT_USER_ID}>"
        message = self._store(user, channel, text if tag in text else f"{tag} {text}", thread_ts)
        parent = self.state.find_message(message.channel, message.thread_ts) if message.thread_ts else None
        place = self.state.channel(message.channel)
        await self.deliver(
            payloads.message_event(message, channel=place, parent_user=parent.user if parent else None), forge=forge
        )
        return await self.deliver(payloads.app_mention_event(message), forge=forge)

    async def deliver(
        self,
        event: dict[str, Any],
        *,
        event_id: str | None = None,
        retry_num: int | None = None,
        retry_reason: str = "http_timeout",
        forge: Forgery | None = None,
    ) -> Delivery:
        """Wrap ``event`` in an ``event_callback`` envelope and send it (as a retry if ``retry_num``)."""
        envelope = payloads.envelope(
            event, event_id=event_id or self.state.new_id("Ev"), event_time=int(self.state.now())
        )
        retry = {} if retry_num is None else {"X-Slack-Retry-Num": str(retry_num), "X-Slack-Retry-Reason": retry_reason}
        return await self._send("event_callback", json.dumps(envelope), JSON, envelope, forge, retry)

    async def retry(self, delivery: Delivery, *, retry_num: int = 1, reason: str = "http_timeout") -> Delivery:
        """Send an earlier event again, same event_id, freshly signed, with Slack's retry headers."""
        if delivery.kind != "event_callback":
            raise ScenarioError("Slack retries only Events API deliveries")
        return await self.deliver(
            delivery.sent["event"], event_id=delivery.event_id, retry_num=retry_num, retry_reason=reason
        )

    async def send_raw(
        self,
        body: str,
        *,
        content_type: str = JSON,
        forge: Forgery | None = None,
        headers: dict[str, str] | None = None,
    ) -> Delivery:
        """Send an arbitrary body, signed (or forged), for tests of the bot's request handling."""
        return await self._send("raw", body, content_type, {"body": body}, forge, headers or {})

    # -- waiting on the bot -------------------------------------------------------------------

    async def wait_until(self, predicate: Callable[[WorkspaceState], bool], *, within: float = 2.0) -> None:
        """Wait until the bot's calls make ``predicate`` true (bolt acks before its handler finishes).

        Raises ``TimeoutError`` after ``within`` seconds.
        """
        async with asyncio.timeout(within):
            while not predicate(self.state):
                await self.state.next_change()

    async def wait_for_call(self, method: str, *, count: int = 1, within: float = 2.0) -> ApiCall:
        """The ``count``-th call the bot made to ``method``, waiting for it if need be."""
        await self.wait_until(lambda s: len(s.calls_to(method)) >= count, within=within)
        return self.state.calls_to(method)[count - 1]

    # -- plumbing ----------------------------------------------------------------------------

    def _store(self, user: str, channel: str, text: str, thread_ts: str | None) -> Message:
        person = self.state.user(user)
        if person.is_bot:
            raise ScenarioError("people post messages; the bot posts through the Web API")
        if thread_ts is not None and self.state.find_message(channel, thread_ts) is None:
            raise ScenarioError(f"no message {thread_ts} to reply to in {channel}")
        return self.state.add_message(channel, user=person.id, text=text, thread_ts=thread_ts)

    def _hook_url(self, hook_id: str) -> str:
        return f"{self.base_url}/response/{hook_id}"

    def _apply(self, effect: Callable[[], None]) -> str | None:
        try:
            effect()
        except SlackFailure as failure:
            return failure.error
        finally:
            self.state.changes.bump()
        return None

    async def _send_interaction(self, kind: Kind, payload: dict[str, Any], forge: Forgery | None) -> Delivery:
        body = urlencode({"payload": json.dumps(payload)})
        return await self._send(kind, body, FORM, payload, forge)

    async def _send(
        self,
        kind: Kind,
        body: str,
        content_type: str,
        sent: dict[str, Any],
        forge: Forgery | None,
        extra: dict[str, str] | None = None,
    ) -> Delivery:
        if self.events_url is None and self.socket is not None and self.socket.connected:
            if forge is not None:
                raise ScenarioError("Socket Mode carries no signature to forge")
            return await self.socket.send(kind, sent, ack_timeout=self.ack_timeout)
        if self.events_url is None:
            raise ScenarioError(
                "no bot connected: set workspace.events_url to the bot's /slack/events URL, or connect in Socket Mode"
            )
        headers = signed_headers(body, signing_secret=self.signing_secret, content_type=content_type, forge=forge)
        headers.update(extra or {})
        return await send(
            self._session,
            self.events_url,
            kind=kind,
            body=body,
            sent=sent,
            headers=headers,
            ack_timeout=self.ack_timeout,
        )
