"""👍/👎 on a finished run's result, from any channel: recorded in the run's history, one vote per person.

A platform may send a feedback event on every click (and a person may click twice), so a vote
that repeats the person's last one is not recorded again; the latest vote counts. A vote changes
nothing about the run; the collaboration report counts them (``storage.metrics``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Literal

from agent.errors import UnknownRun
from agent.models import AuditEvent
from agent.ports import Store

KIND = "result_feedback"
Vote = Literal["up", "down"]
VOTES: tuple[Vote, ...] = ("up", "down")


@dataclass(frozen=True)
class Voted:
    vote: Vote


@dataclass(frozen=True)
class NotVoted:
    """Nothing was recorded: ``why`` says what was wrong with the click."""

    why: Literal["malformed", "unknown_run"]


_VOTING: dict[tuple[int, str, str], tuple[asyncio.Lock, list[int]]] = {}
"""One person's votes on one run are read and written one after another (per event loop), in the order they
came: clicks made in quick succession are processed side by side, and each must see the vote before it.
Each entry holds its lock and how many calls use it (dropped when the last one is done)."""


async def vote(store: Store, at: float, run_id: str, said: str, by: str) -> Voted | NotVoted:
    """Record ``by``'s vote ``said`` (``up`` or ``down``) on the result of ``run_id``."""
    choice = next((v for v in VOTES if v == said), None)
    if choice is None or not run_id:
        return NotVoted("malformed")
    key = (id(asyncio.get_running_loop()), run_id, by)
    lock, users = _VOTING.setdefault(key, (asyncio.Lock(), [0]))
    users[0] += 1
    try:
        async with lock:
            return await _vote(store, at, run_id, choice, by)
    finally:
        users[0] -= 1
        if not users[0]:
            del _VOTING[key]


async def _vote(store: Store, at: float, run_id: str, choice: Vote, by: str) -> Voted | NotVoted:
    try:
        await store.load(run_id)
        events = await store.events(run_id)
    except UnknownRun:
        return NotVoted("unknown_run")
    mine = [e for e in events if e.kind == KIND and e.actor == by]
    if not mine or mine[-1].payload.get("vote") != choice:
        await store.append_events(run_id, [AuditEvent(at=at, actor=by, kind=KIND, payload={"vote": choice})])
    return Voted(choice)
