"""Slack as a platform the core knows: where a Slack run lives, how Slack ids look, where reports go.

Importing this module registers Slack (:func:`agent.models.platforms.register`); every module of
``bot/`` that reads an origin imports it, and the composition root imports it before it loads a
policy or a run.
"""

from __future__ import annotations

import re
from typing import ClassVar, Literal

from agent.models import Origin
from agent.models.platforms import Platform, PrincipalKind, ThreadedOrigin, register

SLACK = "slack"
"""The platform's name: the delivery worker's channel and the ``platform`` of Slack principals."""

_USER = re.compile(r"[UW][A-Z0-9]{2,}")  # W… in Enterprise Grid
_GROUP = re.compile(r"S[A-Z0-9]{2,}")  # a user group
_CHANNEL = re.compile(r"[CG][A-Z0-9]{2,}")  # a public (C…) or private (G…) channel


class SlackThread(ThreadedOrigin):
    """A run started in a Slack channel: its card is the thread's parent message (``thread_ts`` is ``None``
    until the card is posted)."""

    kind: Literal["slack"] = "slack"
    channel_id: str
    thread_ts: str | None = None

    PLATFORM: ClassVar[str] = SLACK
    PLACE: ClassVar[str] = "channel_id"
    ROOT: ClassVar[str] = "thread_ts"


class SlackChannel(Origin):
    """A Slack channel itself, with no thread: where the weekly report is posted."""

    kind: Literal["slack_channel"] = "slack_channel"
    channel_id: str

    @property
    def channel(self) -> str | None:
        return SLACK

    @property
    def scope(self) -> str | None:
        return self.channel_id

    @property
    def thread(self) -> str | None:
        return None

    def at_thread(self, thread: str) -> SlackChannel:
        return self


def parse_id(entry: str) -> PrincipalKind | None:
    """A Slack user (``U…``, ``W…``) or user group (``S…``) id, or None."""
    if _USER.fullmatch(entry):
        return "user"
    if _GROUP.fullmatch(entry):
        return "group"
    return None


def is_channel(entry: str) -> bool:
    """A Slack channel id (``C…``, ``G…``)."""
    return _CHANNEL.fullmatch(entry) is not None


def report_destination(entry: str) -> SlackChannel | None:
    """``[report] channel`` as a Slack channel."""
    return SlackChannel(channel_id=entry) if is_channel(entry) else None


def run_origin(entry: str) -> SlackThread | None:
    """A run asked from outside in a Slack channel: its card starts a thread there."""
    return SlackThread(channel_id=entry) if is_channel(entry) else None


def legacy(channel: dict[str, str]) -> SlackThread | None:
    """Runs stored before origins existed were Slack runs: ``{"channel": …, "thread_ts": …}``."""
    if "channel" in channel and "thread_ts" in channel:
        return SlackThread(channel_id=channel["channel"], thread_ts=channel["thread_ts"])
    return None


PLATFORM = register(
    Platform(
        name=SLACK,
        origins=(SlackThread, SlackChannel),
        parse_id=parse_id,
        is_place=is_channel,
        id_hint="Slack users U…/W… and user groups S… (a profile's ⋮ menu → Copy member ID)",
        report_destination=report_destination,
        report_hint="a Slack channel id (C…), not the name (the channel's details show it at the bottom)",
        run_origin=run_origin,
        legacy=legacy,
    )
)
