"""The in-memory workspace: people, channels, messages, views, triggers and a call log.

Everything is synchronous and driven by an injectable clock, so the Web API
methods and the person-side helpers can share it without locks (they all run
on one event loop). ``advance`` moves the workspace clock forward (trigger and
response_url expiry, message timestamps); request signing always uses the real
clock because the bot checks it against its own.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable
from typing import Any

from workspace.changes import ChangeFeed
from workspace.errors import SlackFailure
from workspace.models import (
    BOT_ID,
    BOT_NAME,
    BOT_USER_ID,
    HOOK_TTL,
    HOOK_USES,
    TRIGGER_TTL,
    ApiCall,
    Channel,
    Ephemeral,
    Fault,
    Hook,
    Message,
    Trigger,
    Upload,
    User,
    View,
)

DEMO_USERS = (
    User(id="U0ALICE", name="alice", real_name="Alice Requester"),
    User(id="U0BOB", name="bob", real_name="Bob Approver"),
    User(id="U0CAROL", name="carol", real_name="Carol Outsider"),
    User(id=BOT_USER_ID, name=BOT_NAME, real_name="Tandem", is_bot=True, bot_id=BOT_ID),
)
DEMO_CHANNELS = (Channel(id="C0OPS", name="ops"), Channel(id="C0GENERAL", name="general"))


class WorkspaceState:
    """Everything Slack would remember, plus a log of what the bot asked of it."""

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._offset = 0.0
        self._last_micros = 0
        self._ids = itertools.count(1)
        self.users: dict[str, User] = {u.id: u for u in DEMO_USERS}
        self.channels: dict[str, Channel] = {c.id: c for c in DEMO_CHANNELS}
        self.messages: dict[str, list[Message]] = {c.id: [] for c in DEMO_CHANNELS}
        self.ephemerals: list[Ephemeral] = []
        self.views: dict[str, View] = {}
        self.modal_stacks: dict[str, list[str]] = {}
        self.home: dict[str, str] = {}
        self.triggers: dict[str, Trigger] = {}
        self.hooks: dict[str, Hook] = {}
        self.calls: list[ApiCall] = []
        self.uploads: dict[str, Upload] = {}
        self.faults: list[Fault] = []
        self.holds: list[tuple[str, bool]] = []  # (method, after applying it)
        self.held: list[asyncio.Future[None]] = []  # calls hanging on a hold, let go when the workspace stops
        self.latency = 0.0
        """Seconds each Web API call takes before Slack acts on it and answers (real Slack: 0.1–0.3 s);
        the calls wait side by side, so it costs time, not CPU (benchmarks set it; 0 answers at once)."""
        self.changes = ChangeFeed()
        self.site = "http://127.0.0.1"
        """Where the page is served (set when the workspace starts): permalinks point there."""
        self.elsewhere: dict[str, str] = {}
        """Other local views by name (``feishu``: the Feishu-style chat of ``tandem dev``), linked from the page."""

    # -- clock and ids -------------------------------------------------------------

    def now(self) -> float:
        return self._clock() + self._offset

    def advance(self, seconds: float) -> None:
        self._offset += seconds

    def next_ts(self) -> str:
        """A Slack-style ts ("1732900000.000100"), strictly increasing."""
        micros = max(int(self.now() * 1_000_000), self._last_micros + 1)
        self._last_micros = micros
        return f"{micros // 1_000_000}.{micros % 1_000_000:06d}"

    def new_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids):08X}"

    # -- people and places ------------------------------------------------------------

    def user(self, ref: str) -> User:
        """Find a person by id ("U0ALICE") or name ("alice", "@alice")."""
        if ref in self.users:
            return self.users[ref]
        name = ref.removeprefix("@")
        for user in self.users.values():
            if user.name == name:
                return user
        raise SlackFailure("user_not_found")

    def channel(self, ref: str) -> Channel:
        """Find a channel by id, name or "#name"; a user id resolves to their DM with the bot."""
        if ref in self.channels:
            return self.channels[ref]
        name = ref.removeprefix("#")
        for channel in self.channels.values():
            if not channel.is_im and channel.name == name:
                return channel
        if ref.startswith(("U", "W")) and ref in self.users:
            return self._dm(ref)
        raise SlackFailure("channel_not_found")

    def dm(self, user: str) -> Channel:
        """The person's direct-message channel with the app (where App Home events point)."""
        return self._dm(self.user(user).id)

    def _dm(self, user_id: str) -> Channel:
        dm = Channel(id=f"D{user_id[1:]}", name=user_id, is_im=True, im_user=user_id)
        self.channels.setdefault(dm.id, dm)
        self.messages.setdefault(dm.id, [])
        return self.channels[dm.id]

    # -- messages ----------------------------------------------------------------------

    def add_message(
        self,
        channel: str,
        *,
        user: str,
        text: str = "",
        blocks: list[dict[str, Any]] | None = None,
        bot_id: str | None = None,
        thread_ts: str | None = None,
        metadata: dict[str, Any] | None = None,
        files: list[dict[str, Any]] | None = None,
    ) -> Message:
        channel_id = self.channel(channel).id
        if thread_ts is not None:
            parent = self.find_message(channel_id, thread_ts)
            if parent is not None and parent.thread_ts is not None:
                thread_ts = parent.thread_ts
        message = Message(
            channel=channel_id,
            ts=self.next_ts(),
            user=user,
            text=text,
            blocks=blocks or [],
            bot_id=bot_id,
            thread_ts=thread_ts,
            metadata=metadata,
            files=files or [],
        )
        if thread_ts is not None:
            parent = self.find_message(channel_id, thread_ts)
            if parent is not None and parent.thread_ts is None:
                parent.thread_ts = parent.ts
        self.messages[channel_id].append(message)
        self.changes.bump()
        return message

    def find_message(self, channel: str, ts: str) -> Message | None:
        for message in self.messages.get(self.channel(channel).id, []):
            if message.ts == ts:
                return message
        return None

    def message(self, channel: str, ts: str) -> Message:
        found = self.find_message(channel, ts)
        if found is None:
            raise SlackFailure("message_not_found")
        return found

    def remove_message(self, channel: str, ts: str) -> None:
        self.messages[self.channel(channel).id].remove(self.message(channel, ts))
        self.changes.bump()

    def history(self, channel: str) -> list[Message]:
        """Top-level messages of a channel, oldest first (thread replies left out)."""
        return [m for m in self.messages[self.channel(channel).id] if not m.is_reply]

    def thread(self, channel: str, thread_ts: str) -> list[Message]:
        """The parent and its replies, oldest first."""
        return [m for m in self.messages[self.channel(channel).id] if m.ts == thread_ts or m.thread_ts == thread_ts]

    def replies_summary(self, parent: Message) -> dict[str, Any]:
        replies = [m for m in self.thread(parent.channel, parent.ts) if m.ts != parent.ts]
        if not replies:
            return {}
        return {
            "reply_count": len(replies),
            "reply_users": sorted({m.user for m in replies}),
            "reply_users_count": len({m.user for m in replies}),
            "latest_reply": replies[-1].ts,
        }

    def add_ephemeral(
        self, channel: str, user: str, *, text: str, blocks: list[dict[str, Any]], thread_ts: str | None = None
    ) -> Ephemeral:
        ephemeral = Ephemeral(
            channel=self.channel(channel).id,
            user=user,
            ts=self.next_ts(),
            text=text,
            blocks=blocks,
            thread_ts=thread_ts,
        )
        self.ephemerals.append(ephemeral)
        self.changes.bump()
        return ephemeral

    def ephemerals_for(self, user: str) -> list[Ephemeral]:
        user_id = self.user(user).id
        return [e for e in self.ephemerals if e.user == user_id]

    # -- triggers and response_urls -------------------------------------------------------

    def issue_trigger(self, user: str, client: str | None = None) -> str:
        trigger = Trigger(
            id=f"{int(self.now())}.{next(self._ids)}.{self.new_id('').lower()}",
            user=self.user(user).id,
            issued_at=self.now(),
            client=client,
        )
        self.triggers[trigger.id] = trigger
        return trigger.id

    def redeem_trigger(self, trigger_id: str) -> Trigger:
        """Exchange a trigger for the person it belongs to, once, within three seconds."""
        trigger = self.triggers.get(trigger_id)
        if trigger is None:
            raise SlackFailure("invalid_trigger_id")
        if trigger.used:
            raise SlackFailure("exchanged_trigger_id")
        if self.now() - trigger.issued_at > TRIGGER_TTL:
            raise SlackFailure("expired_trigger_id")
        trigger.used = True
        return trigger

    def issue_hook(self, user: str, channel: str, *, message_ts: str | None = None, is_ephemeral: bool = False) -> Hook:
        hook = Hook(
            id=self.new_id("H"),
            user=self.user(user).id,
            channel=self.channel(channel).id,
            issued_at=self.now(),
            message_ts=message_ts,
            is_ephemeral=is_ephemeral,
        )
        self.hooks[hook.id] = hook
        return hook

    def use_hook(self, hook_id: str) -> Hook:
        hook = self.hooks.get(hook_id)
        if hook is None:
            raise SlackFailure("no_active_hooks", status=404)
        if hook.uses >= HOOK_USES or self.now() - hook.issued_at > HOOK_TTL:
            raise SlackFailure("expired_url", status=404)
        hook.uses += 1
        return hook

    # -- views -------------------------------------------------------------------------

    def view(self, view_id: str) -> View:
        view = self.views.get(view_id)
        if view is None:
            raise SlackFailure("not_found")
        return view

    def view_by_external_id(self, external_id: str) -> View:
        for view in self.views.values():
            if view.spec.get("external_id") == external_id:
                return view
        raise SlackFailure("not_found")

    def open_modals(self, user: str, client: str | None = None) -> list[View]:
        """The user's modal stack, bottom first; with ``client``, only if it opened in that browser session."""
        stack = [self.views[v] for v in self.modal_stacks.get(self.user(user).id, [])]
        if client is None or all(v.client in (None, client) for v in stack):
            return stack
        return []

    def home_view(self, user: str) -> View | None:
        view_id = self.home.get(self.user(user).id)
        return self.views[view_id] if view_id else None

    def new_hash(self) -> str:
        return f"{int(self.now())}.{self.new_id('h')}"

    # -- the bot's calls and injected faults ----------------------------------------------

    def fail_next(
        self,
        method: str,
        error: str = "ratelimited",
        status: int = 429,
        retry_after: int | None = 1,
        *,
        containing: str | None = None,
    ) -> None:
        """Make the next call to ``method`` fail with ``error`` (HTTP ``status``, Retry-After); with
        ``containing``, the next call whose parameters (as JSON) contain that text, e.g. one message's post."""
        fault = Fault(method=method, error=error, status=status, retry_after=retry_after, containing=containing)
        self.faults.append(fault)

    def hold_next(self, method: str, *, after_applying: bool = False) -> None:
        """Make the next call to ``method`` never answer (as if the network died mid-call): before it
        takes effect, or ``after_applying`` it (the message is there, the bot never hears so)."""
        self.holds.append((method, after_applying))

    def take_hold(self, method: str) -> bool | None:
        """None when ``method`` is not held; else whether it is held after applying."""
        for hold in self.holds:
            if hold[0] == method:
                self.holds.remove(hold)
                self.changes.bump()
                return hold[1]
        return None

    def release_holds(self) -> None:
        """Let every held call go (their callers are long gone; the server can stop)."""
        for future in self.held:
            if not future.done():
                future.set_result(None)
        self.held.clear()

    def take_fault(self, method: str, params: dict[str, Any] | None = None) -> Fault | None:
        said = json.dumps(params or {}, ensure_ascii=False, default=str)
        for fault in self.faults:
            if fault.method == method and (fault.containing is None or fault.containing in said):
                self.faults.remove(fault)
                return fault
        return None

    def record(self, method: str, params: dict[str, Any], *, error: str | None = None) -> None:
        self.calls.append(ApiCall(method=method, params=params, ok=error is None, error=error, at=self.now()))
        self.changes.bump()

    async def next_change(self) -> None:
        """Return after the next change: a call the bot made (every bot-driven change makes one), a post."""
        await self.changes.wait_past(self.changes.version)

    def calls_to(self, method: str) -> list[ApiCall]:
        return [c for c in self.calls if c.method == method]
