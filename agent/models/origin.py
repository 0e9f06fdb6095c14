"""Where a run lives, and who people are: typed, so the core never reads a platform's strings.

A run carries one :data:`Origin`: the Slack thread, the Feishu chat or the terminal it
was started from. The core asks an origin only platform-neutral questions:

* ``channel``: which delivery worker shows the run to people (``None``: nobody follows it in a chat);
* ``scope``: where standing rules live and which runs a place lists;
* ``thread``: the key that finds the run again from a reply in its thread (``None`` until the run's card,
  the thread's first message, is posted: a run is stored before its card, which the outbox posts);
* ``at_thread``: the origin once its card is posted at that key (the store keeps the key beside the run).

People and groups are :class:`Principal`\\s. Policy entries and event authors stay plain
ids on disk (``U0BOB``, ``S0OPS``, ``ou_…``); :meth:`Principal.parse` types them.

Prose the core writes names people with :func:`mention` markers; each channel renders
them its own way (:func:`render_mentions`): ``<@U0BOB>`` in Slack, ``<at user_id=…>`` in
Feishu, ``@name`` in a terminal.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from agent.models.base import _Model, _Tagged

Platform = Literal["slack", "feishu", "terminal"]


class SlackThread(_Tagged):
    """A run started in a Slack channel: its card is the thread's parent message (``thread_ts`` is ``None``
    until the card is posted)."""

    kind: Literal["slack"] = "slack"
    channel_id: str
    thread_ts: str | None = None

    @property
    def channel(self) -> str | None:
        return "slack"

    @property
    def scope(self) -> str | None:
        return self.channel_id

    @property
    def thread(self) -> str | None:
        return f"{self.channel_id}:{self.thread_ts}" if self.thread_ts is not None else None

    def at_thread(self, thread: str) -> SlackThread:
        return self.model_copy(update={"thread_ts": thread.partition(":")[2]})


class FeishuChat(_Tagged):
    """A run started in a Feishu/Lark chat: its card is the root of the reply thread (``root_id`` is ``None``
    until the card is posted)."""

    kind: Literal["feishu"] = "feishu"
    chat_id: str
    root_id: str | None = None

    @property
    def channel(self) -> str | None:
        return "feishu"

    @property
    def scope(self) -> str | None:
        return self.chat_id

    @property
    def thread(self) -> str | None:
        return f"{self.chat_id}:{self.root_id}" if self.root_id is not None else None

    def at_thread(self, thread: str) -> FeishuChat:
        return self.model_copy(update={"root_id": thread.partition(":")[2]})


class Terminal(_Tagged):
    """A run started from the command line: nobody follows it in a chat, rules do not apply."""

    kind: Literal["terminal"] = "terminal"

    @property
    def channel(self) -> str | None:
        return None

    @property
    def scope(self) -> str | None:
        return None

    @property
    def thread(self) -> str | None:
        return None

    def at_thread(self, thread: str) -> Terminal:
        return self


Origin = Annotated[SlackThread | FeishuChat | Terminal, Field(discriminator="kind")]


def legacy_origin(channel: dict[str, str]) -> SlackThread | Terminal:
    """The origin of a run stored before origins existed (``{"channel": …, "thread_ts": …}`` or ``{}``)."""
    if "channel" in channel and "thread_ts" in channel:
        return SlackThread(channel_id=channel["channel"], thread_ts=channel["thread_ts"])
    return Terminal()


_SLACK_USER = re.compile(r"[UW][A-Z0-9]{2,}")
_SLACK_GROUP = re.compile(r"S[A-Z0-9]{2,}")
_FEISHU_USER = re.compile(r"ou_[A-Za-z0-9]+")
_FEISHU_GROUP = re.compile(r"od[-_][A-Za-z0-9]+|oc_[A-Za-z0-9]+")  # a department (od-… as Feishu writes it) or a chat


class Principal(_Model):
    """A person or a group on one platform."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    platform: Platform
    kind: Literal["user", "group"]
    id: str

    @classmethod
    def parse(cls, entry: str) -> Principal:
        """Type a stored id. Anything that is no platform's id is a terminal user name."""
        if _SLACK_USER.fullmatch(entry):
            return cls(platform="slack", kind="user", id=entry)
        if _SLACK_GROUP.fullmatch(entry):
            return cls(platform="slack", kind="group", id=entry)
        if _FEISHU_USER.fullmatch(entry):
            return cls(platform="feishu", kind="user", id=entry)
        if _FEISHU_GROUP.fullmatch(entry):
            return cls(platform="feishu", kind="group", id=entry)
        return cls(platform="terminal", kind="user", id=entry)

    @property
    def is_group(self) -> bool:
        return self.kind == "group"

    def __str__(self) -> str:
        return self.id


def reachable(ids: Iterable[str], origin: SlackThread | FeishuChat | Terminal) -> tuple[str, ...]:
    """Of ``ids`` (people and groups, in order), those a person where the run lives can reach: a
    policy may name someone on each platform, and a Slack thread should not name a Feishu id. The
    terminal reaches everyone; where none is of the run's platform, all are kept (so a refusal still
    says who may)."""
    ids = tuple(ids)
    if origin.kind == "terminal":
        return ids
    mine = tuple(i for i in ids if Principal.parse(i).platform == origin.kind)
    return mine or ids


def is_group(entry: str) -> bool:
    """Whether a stored id names a group (a Slack user group, a Feishu department or chat)."""
    return Principal.parse(entry).is_group


# Markers in core prose: U+27E6/U+27E7 never occur in ids and rarely in text people type.
_MARKER = re.compile(r"⟦(@|t:)([^⟦⟧\s]{1,64})⟧")


def mention(entry: str) -> str:
    """Name a person or group in prose the core writes; each channel renders it its own way."""
    return f"⟦@{entry}⟧"


def moment(at: float) -> str:
    """A point in time in prose the core writes; each channel renders it (Slack: each reader's local time)."""
    return f"⟦t:{int(at)}⟧"


def utc_time(at: float) -> str:
    """``14:02 UTC``: how a time reads where no channel knows the reader's zone."""
    return datetime.fromtimestamp(at, UTC).strftime("%H:%M UTC")


def render_mentions(text: str, render: Callable[[Principal], str], when: Callable[[float], str] = utc_time) -> str:
    """Replace every :func:`mention` by ``render`` of its principal and every :func:`moment` by ``when``
    of it (linear in ``text``)."""

    def one(m: re.Match[str]) -> str:
        if m.group(1) == "@":
            return render(Principal.parse(m.group(2)))
        try:
            return when(float(m.group(2)))
        except ValueError:
            return m.group(0)

    return _MARKER.sub(one, text) if "⟦" in text else text


def plain_mention(principal: Principal) -> str:
    """A mention for plain text (a terminal, a log line)."""
    return f"@{principal.id}"
