"""What a person's inbox holds: the pending reviews and handoffs they may decide or asked for, soonest first.

Built from the same neutral view every chat renders (:func:`agent.review_view.review_view`): the plan, the outputs
so far, the evidence and who else must decide come with each item, from the store, never fetched on the side.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agent.errors import UnknownRun
from agent.models import Approve, Priority, Review, ReviewRecord, RunState
from agent.policy import SafetyPolicy
from agent.ports import Store
from agent.review_view import ReviewView, review_view
from agent.usecases import UseCases

LIMIT = 500
"""The most runs waiting on a person an inbox reads at once (newest first)."""
RANK: dict[Priority, int] = {"urgent": 0, "high": 1, "normal": 2, "low": 3}


@dataclass(frozen=True)
class Door:
    """What the inbox reaches: the store, the policy, and each person's use cases (their platform's groups)."""

    store: Store
    safety: SafetyPolicy
    usecases: Callable[[str], UseCases]
    """The use cases for a person (their platform's group membership)."""

    async def groups(self, person: str) -> Sequence[str]:
        return await self.usecases(person).groups_of(person)


@dataclass(frozen=True)
class Item:
    view: ReviewView
    state: RunState
    may_decide: bool  # else the person asked for the run and only watches (they may still stop it)

    @property
    def priority(self) -> Priority:
        """A handoff's priority; every other review is normal."""
        return self.view.handoff.priority if self.view.handoff is not None else "normal"

    @property
    def kind(self) -> str:
        return "handoff" if self.view.anchor == "handoff" else "review"


def ordered(items: Sequence[Item]) -> list[Item]:
    """The inbox's one order: the nearest deadline first (none last), then the higher priority, then the oldest."""
    return sorted(
        items,
        key=lambda i: (i.view.deadline is None, i.view.deadline or 0.0, RANK[i.priority], i.state.created_at),
    )


def may_decide(safety: SafetyPolicy, state: RunState, review: Review, person: str, groups: Sequence[str]) -> bool:
    return safety.check(state, review, person, Approve(), groups) is None


def may_see(safety: SafetyPolicy, state: RunState, review: Review, person: str, groups: Sequence[str]) -> bool:
    """Only what ``person`` may decide, or a run they asked for: an outsider sees nothing."""
    return person == state.requester or may_decide(safety, state, review, person, groups)


async def inbox(door: Door, person: str) -> list[Item]:
    """``person``'s pending items, in :func:`ordered` order."""
    groups = list(await door.groups(person))
    waiting = await door.store.list_runs(status="awaiting_review", limit=LIMIT)
    states = await asyncio.gather(*(_load(door.store, s.id) for s in waiting))
    items = []
    for state in states:
        review = state.pending if state is not None and not state.finished else None
        if state is None or review is None or not may_see(door.safety, state, review, person, groups):
            continue
        decides = may_decide(door.safety, state, review, person, groups)
        items.append(Item(review_view(state, review, door.safety), state, decides))
    return ordered(items)


@dataclass(frozen=True)
class Found:
    """One item as its page shows it: pending (``item``) or decided already (``record`` says by whom)."""

    record: ReviewRecord
    state: RunState
    item: Item | None


async def find(door: Door, review_id: str, person: str) -> Found | None:
    """The review ``review_id`` if ``person`` may see it (None: unknown, or not theirs: the same to them)."""
    record = await door.store.get_review(review_id)
    if record is None:
        return None
    state = await _load(door.store, record.run_id)
    if state is None:
        return None
    groups = list(await door.groups(person))
    pending = state.pending if state.pending is not None and state.pending.id == review_id else None
    review = pending if pending is not None and not state.finished else record.as_review()
    asked = record.answered_by == person or bool({person, *groups} & await _assignees(door.store, state.id))
    if not (asked or may_see(door.safety, state, review, person, groups)):
        return None
    if pending is None or state.finished or record.status != "pending":
        return Found(record, state, None)
    view = review_view(state, pending, door.safety)
    return Found(record, state, Item(view, state, may_decide(door.safety, state, pending, person, groups)))


async def _assignees(store: Store, run_id: str) -> set[str]:
    """Everyone a question of the run was put to (a decided review no longer carries its assignees; the audit
    trail does)."""
    return {
        str(a)
        for event in await store.events(run_id)
        if event.kind == "step_paused"
        for a in (event.payload.get("assignees") or [])
    }


async def _load(store: Store, run_id: str) -> RunState | None:
    try:
        state, _ = await store.load(run_id)
    except UnknownRun:
        return None
    return state
