"""Where a run lives, and who people are: typed, so the core never reads a platform's strings.

A run carries one :class:`Origin`: a tagged record (``kind`` plus the platform's own fields) that a
channel package defines and registers (:mod:`agent.models.platforms`), or :class:`Terminal`. The
core asks an origin only platform-neutral questions:

* ``channel``: which delivery worker shows the run to people (``None``: nobody follows it in a chat);
* ``scope``: where standing rules live and which runs a place lists;
* ``thread``: the key that finds the run again from a reply in its thread (``None`` until the run's card,
  the thread's first message, is posted: a run is stored before its card, which the outbox posts);
* ``at_thread``: the origin once its card is posted at that key (the store keeps the key beside the run).

People and groups are :class:`Principal`\\s. Policy entries and event authors stay plain
ids on disk; :meth:`Principal.parse` types them with the registered platforms' id parsers.

Prose the core writes names people with :func:`mention` markers; each channel renders
them its own way (:func:`render_mentions`), ``@name`` in a terminal.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Literal

from pydantic import ConfigDict, SerializeAsAny

from agent.models import platforms
from agent.models.base import Model
from agent.models.platforms import Origin as Origin
from agent.models.platforms import Terminal as Terminal

TERMINAL_KIND = platforms.TERMINAL


AnyOrigin = SerializeAsAny[Origin]
"""An origin field: validated into its registered variant, written with all of that variant's fields."""


def legacy_origin(channel: dict[str, str]) -> Origin:
    """The origin of a run stored before origins existed (its ``channel`` record, ``{}`` at a terminal)."""
    if not channel:
        return Terminal()
    if (where := platforms.legacy_origin(channel)) is None:
        raise ValueError(f"no registered platform recognises the stored channel {channel}")
    return where


class Principal(Model):
    """A person or a group on one platform."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    platform: str
    kind: Literal["user", "group"]
    id: str

    @classmethod
    def parse(cls, entry: str) -> Principal:
        """Type a stored id. Anything that is no registered platform's id is a terminal user name."""
        found = platforms.principal_of(entry)
        if found is None:
            return cls(platform=TERMINAL_KIND, kind="user", id=entry)
        return cls(platform=found[0], kind=found[1], id=entry)

    @property
    def is_group(self) -> bool:
        return self.kind == "group"

    @property
    def is_id(self) -> bool:
        """Whether it is a registered platform's id (not a name typed at a terminal)."""
        return self.platform != TERMINAL_KIND

    def __str__(self) -> str:
        return self.id


def reachable(ids: Iterable[str], origin: Origin) -> tuple[str, ...]:
    """Of ``ids`` (people and groups, in order), those a person where the run lives can reach: a
    policy may name someone on each platform, and a thread on one should not name another's ids.
    The terminal reaches everyone; where none is of the run's platform, all are kept (so a refusal
    still says who may)."""
    ids = tuple(ids)
    if origin.channel is None:
        return ids
    mine = tuple(i for i in ids if Principal.parse(i).platform == origin.channel)
    return mine or ids


def is_group(entry: str) -> bool:
    """Whether a stored id names a group on a registered platform."""
    return Principal.parse(entry).is_group


# Markers in core prose: U+27E6/U+27E7 never occur in ids and rarely in text people type.
_MARKER = re.compile(r"⟦(@|t:)([^⟦⟧\s]{1,64})⟧")


def mention(entry: str) -> str:
    """Name a person or group in prose the core writes; each channel renders it its own way."""
    return f"⟦@{entry}⟧"


def moment(at: float) -> str:
    """A point in time in prose the core writes; each channel renders it (in each reader's local time where it can)."""
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
