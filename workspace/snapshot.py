"""What the browser page shows one person, as JSON, and what changed between two of those. Pure.

A snapshot holds the people, the channels with every message (blocks exactly
as the bot sent them: the page renders what it knows and shows the rest as
JSON), the person's own ephemerals, their modal stack and their App Home.
:func:`changes` compares two snapshots and names each difference, so the
event stream can say ``message_posted`` or ``view_closed`` rather than just
"something happened".
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from workspace.models import Message, View
from workspace.state import WorkspaceState

Snapshot = dict[str, Any]
ChangeKind = Literal[
    "message_posted",
    "message_updated",
    "message_deleted",
    "ephemeral_posted",
    "ephemeral_updated",
    "ephemeral_deleted",
    "view_opened",
    "view_updated",
    "view_closed",
    "home_published",
]

ROLES = {"U0ALICE": "requester", "U0BOB": "approver", "U0CAROL": "outsider"}
"""What each demo person is for, shown in the page's person switcher."""


class Change(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: ChangeKind
    channel: str | None = None
    ts: str | None = None
    view_id: str | None = None


def snapshot(state: WorkspaceState, user: str, client: str | None = None) -> Snapshot:
    """Everything ``user`` can see right now (in browser session ``client``: a modal shows only where it opened)."""
    me = state.user(user)
    channels = [c for c in state.channels.values() if not c.is_im]
    home = state.home_view(me.id)
    return {
        "me": me.id,
        "users": [{**u.to_slack(), "role": ROLES.get(u.id)} for u in state.users.values()],
        "channels": [{"id": c.id, "name": c.name} for c in channels],
        "messages": {c.id: [_message(m) for m in state.messages[c.id]] for c in channels},
        "ephemerals": [e.model_dump() for e in state.ephemerals_for(me.id)],
        "modals": [_view(v) for v in state.open_modals(me.id, client)],
        "home": _view(home) if home is not None else None,
    }


def changes(before: Snapshot | None, after: Snapshot) -> list[Change]:
    """What differs between two snapshots of one person's view, in a stable order."""
    if before is None:
        return []
    found: list[Change] = []
    for channel, messages in after["messages"].items():
        found += _compare(before["messages"].get(channel, []), messages, "message")
    found += _compare(before["ephemerals"], after["ephemerals"], "ephemeral")
    old_views = {v["id"]: v for v in before["modals"]}
    new_views = {v["id"]: v for v in after["modals"]}
    for view_id, view in new_views.items():
        if view_id not in old_views:
            found.append(Change(kind="view_opened", view_id=view_id))
        elif view != old_views[view_id]:
            found.append(Change(kind="view_updated", view_id=view_id))
    found += [Change(kind="view_closed", view_id=v) for v in old_views if v not in new_views]
    if after["home"] is not None and after["home"] != before["home"]:
        found.append(Change(kind="home_published", view_id=after["home"]["id"]))
    return found


_KINDS: dict[str, tuple[ChangeKind, ChangeKind, ChangeKind]] = {
    "message": ("message_posted", "message_updated", "message_deleted"),
    "ephemeral": ("ephemeral_posted", "ephemeral_updated", "ephemeral_deleted"),
}


def _compare(before: list[dict[str, Any]], after: list[dict[str, Any]], noun: str) -> list[Change]:
    posted, updated, deleted = _KINDS[noun]
    old = {m["ts"]: m for m in before}
    new = {m["ts"]: m for m in after}
    found: list[Change] = []
    for ts, item in new.items():
        if ts not in old:
            found.append(Change(kind=posted, ts=ts, channel=item["channel"]))
        elif item != old[ts]:
            found.append(Change(kind=updated, ts=ts, channel=item["channel"]))
    found += [Change(kind=deleted, ts=ts, channel=item["channel"]) for ts, item in old.items() if ts not in new]
    return found


def _message(message: Message) -> dict[str, Any]:
    return {**message.to_slack(), "channel": message.channel, "streaming": message.streaming}


def _view(view: View) -> dict[str, Any]:
    return {**view.to_slack(), "errors": view.errors}
