"""The inbox's one order: the nearest deadline, then the higher priority, then the oldest."""

from __future__ import annotations

from agent.models import Handoff, Priority, RunState
from agent.review_view import ReviewView
from inbox_web.items import Item, ordered


def _item(name: str, deadline: float | None, priority: Priority | None, created: float = 0.0) -> Item:
    handoff = Handoff(prompt=name, priority=priority) if priority is not None else None
    view = ReviewView(
        run_id=name,
        review_id=name,
        anchor="handoff" if handoff else "after_plan",
        title="",
        task=name,
        note=None,
        step=None,
        steps=(),
        output=None,
        handoff=handoff,
        asker=None,
        warning=None,
        takeover_reason=None,
        choices=(),
        text_approves=False,
        waiting_on=(),
        deadline=deadline,
    )
    state = RunState(id=name, task=name, requester="U0ALICE", created_at=created, updated_at=created)
    return Item(view, state, may_decide=True)


def test_ordered_same_deadline_puts_the_higher_priority_first_and_a_review_counts_as_normal() -> None:
    items = [
        _item("low", 100.0, "low"),
        _item("plan", 100.0, None),
        _item("urgent", 100.0, "urgent"),
        _item("high", 100.0, "high"),
    ]
    assert [i.view.review_id for i in ordered(items)] == ["urgent", "high", "plan", "low"]


def test_ordered_nearest_deadline_first_and_no_deadline_last_oldest_first_on_ties() -> None:
    items = [
        _item("none-urgent", None, "urgent"),
        _item("later", 200.0, "urgent"),
        _item("sooner", 100.0, "low"),
        _item("none-old", None, "urgent", created=-5.0),
    ]
    assert [i.view.review_id for i in ordered(items)] == ["sooner", "later", "none-old", "none-urgent"]
