"""The web inbox as the place a handoff is asked (``channel = "inbox"``): the run is posted to no chat; its
assignees find it in their web inbox and answer it there.

Importing this module registers the place (:func:`agent.models.platforms.register`). It names no people: who
may answer is still named by a chat platform's user or group ids, and the inbox shows the question to them.
"""

from __future__ import annotations

from typing import Literal

from agent.models.platforms import Platform, PrincipalKind, Unfollowed, register

INBOX = "inbox"
"""The ``channel`` that asks in the web inbox, the kind of its origin, and the name of its place."""


class InInbox(Unfollowed):
    """A run asked in the web inbox: nothing is posted to a chat, no standing rule applies, it has no thread;
    people reach it through the inbox alone."""

    kind: Literal["inbox"] = "inbox"


def run_origin(entry: str) -> InInbox | None:
    """``inbox`` as the place a handoff is asked."""
    return InInbox() if entry == INBOX else None


def _nobody(entry: str) -> PrincipalKind | None:
    return None


def _nowhere(entry: str) -> bool:
    return False


PLATFORM = register(
    Platform(name=INBOX, origins=(InInbox,), parse_id=_nobody, is_place=_nowhere, id_hint="", run_origin=run_origin)
)
