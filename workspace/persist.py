"""Keeping a workspace's messages across restarts, in a JSON file beside the bot's database.

``tandem dev`` is restartable like the bot: runs live on in SQLite, and so must
the run cards and threads they point at, or a restarted bot would update
messages that are gone. Only messages are kept; modals, ephemerals, triggers
and response_urls expire in Slack too, and a Home tab is published again.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from workspace.models import Message, Upload
from workspace.state import WorkspaceState

COALESCE = 0.2
"""Seconds to wait after a change before writing, so a burst of changes is one write."""


class Saved(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = 1
    messages: list[Message]
    uploads: list[Upload] = Field(default_factory=list)  # the files those messages show


def dump(state: WorkspaceState) -> str:
    messages = [m for channel in state.messages.values() for m in channel]
    uploads = [u for u in state.uploads.values() if u.completed]
    return Saved(messages=messages, uploads=uploads).model_dump_json(indent=1)


def restore(state: WorkspaceState, text: str) -> int:
    """Put the saved messages back into ``state``; how many there were."""
    saved = Saved.model_validate_json(text)
    for message in saved.messages:
        dm = message.channel.startswith("D") and message.channel not in state.channels
        place = state.channel("U" + message.channel[1:] if dm else message.channel)  # a DM opens by user id
        state.messages[place.id].append(message)
    state.uploads.update({u.id: u for u in saved.uploads})
    state.changes.bump()
    return len(saved.messages)


def write(path: Path, text: str) -> None:
    """Replace ``path`` atomically: a crash leaves the old file or the new one, never half of one."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text)
    os.replace(partial, path)


async def keep(state: WorkspaceState, path: Path) -> None:
    """Write ``state``'s messages to ``path`` after every change, until cancelled (then once more)."""
    version = state.changes.version
    try:
        while True:
            version = await state.changes.wait_past(version)
            await asyncio.sleep(COALESCE)
            version = state.changes.version
            await asyncio.to_thread(write, path, dump(state))
    finally:
        write(path, dump(state))
