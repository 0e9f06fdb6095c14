"""The names the terminal shows for stored chat ids, where something on this machine knows them.

Offline, only ``tandem dev``'s local workspace knows who ``U0ALICE`` is and which channel ``C0OPS`` is:
its people and channels are fixed, and a database it served keeps the workspace's messages beside it
(``tandem.db.workspace.json``). A database a real Slack or Feishu bot wrote keeps ids alone (neither the
policy nor the runs hold names), so those are shown as stored.
"""

from __future__ import annotations

from pathlib import Path

from agent.models import Principal

_PEOPLE: dict[str, str] = {}
_PLACES: dict[str, str] = {}


def learn(db: str | Path) -> None:
    """Know the local workspace's names when ``db`` is a database ``tandem dev`` served (else none)."""
    _PEOPLE.clear()
    _PLACES.clear()
    path = Path(db)
    if not path.with_name(path.name + ".workspace.json").exists():
        return
    from workspace.state import DEMO_CHANNELS, DEMO_USERS  # only then: the workspace is no reader's concern

    _PEOPLE.update({u.id: u.name for u in DEMO_USERS})
    _PLACES.update({c.id: f"#{c.name}" for c in DEMO_CHANNELS})


def person(entry: str) -> str:
    """``alice`` for ``U0ALICE`` where the name is known; else the id as stored."""
    return _PEOPLE.get(entry, entry)


def place(entry: str) -> str:
    """``#ops`` for ``C0OPS`` where the channel's name is known; else the id as stored."""
    return _PLACES.get(entry, entry)


def named_mention(principal: Principal) -> str:
    """A mention for a terminal: ``@alice`` where the name is known, else ``@`` and the id."""
    return f"@{person(principal.id)}"
