"""Mail as a place a handoff can be asked (``channel = "email:ADDRESS"``): the run lives at that address,
its question is mailed there, and its people answer in the web inbox.

Importing this module registers the platform (:func:`agent.models.platforms.register`). It names no people:
those who may answer are still named by their chat platform's ids.
"""

from __future__ import annotations

from typing import Literal

from agent.config_mail import is_address
from agent.models import MAIL, Origin
from agent.models.platforms import Platform, PrincipalKind, register

PREFIX = "email:"


class MailTo(Origin):
    """A run asked at a mail address. It has no chat thread; its key says where it was mailed."""

    kind: Literal["email"] = "email"
    address: str

    @property
    def channel(self) -> str | None:
        return MAIL

    @property
    def scope(self) -> str | None:
        return None  # no standing rules apply to a mailbox

    @property
    def thread(self) -> str | None:
        return f"{PREFIX}{self.address}"  # never None: no card is posted first

    def at_thread(self, thread: str) -> MailTo:
        return self


def run_origin(entry: str) -> MailTo | None:
    """``email:ADDRESS`` as the place a handoff is asked."""
    if not entry.startswith(PREFIX):
        return None
    address = entry.removeprefix(PREFIX).strip()
    return MailTo(address=address) if is_address(address) else None


def _no_ids(entry: str) -> PrincipalKind | None:
    return None


def _no_places(entry: str) -> bool:
    return False


PLATFORM = register(
    Platform(
        name=MAIL,
        origins=(MailTo,),
        parse_id=_no_ids,
        is_place=_no_places,
        id_hint="",
        run_origin=run_origin,
    )
)
