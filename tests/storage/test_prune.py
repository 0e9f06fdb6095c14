"""Retention: finished runs older than the cutoff go with everything they left; nothing else does."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.models import AuditEvent, CardRefresh, Phase, Review, RunState
from agent.models.tokens import AskedRecord, TaskRecord
from bot.origin import SlackThread
from storage.db import connect
from storage.runs import RunStore
from storage.tokens import keep_asked, keep_task

DAY = 86_400.0
NOW = 1_000 * DAY
CUTOFF = NOW - 90 * DAY
OLD = NOW - 200 * DAY
RECENT = NOW - 10 * DAY
CHILDREN = ("events", "reviews", "chat_messages", "outbox", "asked", "a2a_tasks")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RunStore]:
    db = connect(tmp_path / "t.db")
    yield RunStore(db)
    db.close()


def add_run(store: RunStore, run_id: str, phase: Phase, at: float) -> None:
    """A run last written at ``at``, with two audit events, one review, one posted message, asked through the API."""
    state = RunState(
        id=run_id,
        task="restart payments",
        requester="U1",
        created_at=at - 60,
        updated_at=at,
        phase=phase,
        origin=SlackThread(channel_id="C1", thread_ts=f"{at}.{run_id}"),
    )
    events = [AuditEvent(at=at - 60, actor="U1", kind="started"), AuditEvent(at=at, actor="agent", kind=phase)]
    store.create(
        state,
        events,
        Review(id=f"rv-{run_id}", anchor="after_plan", created_at=at - 30),
        ("slack", [CardRefresh()]),
    )
    store.save_message(f"card:{run_id}", run_id, "C1", f"{at}.{run_id}", [{"type": "divider"}])
    keep_asked(store.db, AskedRecord(id=run_id, token="ci", idempotency_key=f"k-{run_id}", created_at=at - 60))
    keep_task(store.db, TaskRecord(id=run_id, token="ci", context_id=run_id, message_id=f"m-{run_id}", created_at=at))


def rows_of(store: RunStore, run_id: str) -> dict[str, int]:
    counts = {"runs": store.db.execute("SELECT count(*) FROM runs WHERE id = ?", [run_id]).fetchone()[0]}
    for table in CHILDREN:
        counts[table] = store.db.execute(f"SELECT count(*) FROM {table} WHERE run_id = ?", [run_id]).fetchone()[0]
    return counts


def table_counts(store: RunStore) -> dict[str, int]:
    names = ("runs", *CHILDREN, "deliveries")
    return {name: store.db.execute(f"SELECT count(*) FROM {name}").fetchone()[0] for name in names}


WHOLE = {"runs": 1, "events": 2, "reviews": 1, "chat_messages": 1, "outbox": 1, "asked": 1, "a2a_tasks": 1}
GONE = dict.fromkeys(WHOLE, 0)


@pytest.mark.parametrize("phase", ["awaiting_review", "planning", "executing", "human_takeover"])
def test_prune_with_old_unfinished_run_keeps_it_whole(store: RunStore, phase: Phase) -> None:
    add_run(store, "waiting", phase, OLD)
    counts = store.prune(CUTOFF, dry_run=False)
    assert rows_of(store, "waiting") == WHOLE
    assert store.load("waiting")[0].phase == phase
    assert sum(counts.rows.values()) == 0


@pytest.mark.parametrize("phase", ["done", "cancelled", "failed"])
def test_prune_with_old_finished_run_deletes_it_with_its_children(store: RunStore, phase: Phase) -> None:
    add_run(store, "old", phase, OLD)
    add_run(store, "kept", "awaiting_review", OLD)
    counts = store.prune(CUTOFF, dry_run=False)
    assert rows_of(store, "old") == GONE
    assert rows_of(store, "kept") == WHOLE
    assert counts.rows == {
        "runs": 1,
        "events": 2,
        "reviews": 1,
        "chat_messages": 1,
        "outbox": 1,
        "asked": 1,
        "a2a_tasks": 1,
        "deliveries": 0,
        "inbox": 0,
    }
    assert not counts.dry_run and counts.before == CUTOFF


def test_prune_with_recent_finished_run_keeps_it(store: RunStore) -> None:
    add_run(store, "recent", "done", RECENT)
    add_run(store, "old", "done", OLD)
    store.prune(CUTOFF, dry_run=False)
    assert rows_of(store, "recent") == WHOLE
    assert rows_of(store, "old") == GONE


def test_prune_with_old_and_new_delivery_keys_deletes_only_the_old(store: RunStore) -> None:
    store.claim_delivery("msg:C1:old", OLD)
    store.claim_delivery("msg:C1:new", RECENT)
    counts = store.prune(CUTOFF, dry_run=False)
    assert counts.rows["deliveries"] == 1
    assert [r[0] for r in store.db.execute("SELECT key FROM deliveries").fetchall()] == ["msg:C1:new"]
    assert store.claim_delivery("msg:C1:old", NOW)  # forgotten, so a new delivery of it counts again


def test_prune_dry_run_counts_what_a_real_prune_deletes_and_deletes_nothing(store: RunStore) -> None:
    phases: tuple[Phase, ...] = ("done", "failed", "cancelled", "awaiting_review")
    for i, phase in enumerate(phases):
        add_run(store, f"old{i}", phase, OLD)
    add_run(store, "recent", "done", RECENT)
    store.claim_delivery("old-key", OLD)
    before = table_counts(store)
    dry = store.prune(CUTOFF, dry_run=True)
    assert dry.dry_run
    assert table_counts(store) == before
    assert dry.rows == {
        "runs": 3,
        "events": 6,
        "reviews": 3,
        "chat_messages": 3,
        "outbox": 3,
        "asked": 3,
        "a2a_tasks": 3,
        "deliveries": 1,
        "inbox": 0,
    }
    assert store.prune(CUTOFF, dry_run=False).rows == dry.rows


def test_prune_with_more_rows_than_a_batch_deletes_them_all(store: RunStore) -> None:
    for i in range(5):
        add_run(store, f"old{i}", "done", OLD)
        store.claim_delivery(f"key{i}", OLD)
    add_run(store, "waiting", "awaiting_review", OLD)
    counts = store.prune(CUTOFF, dry_run=False, batch=2)
    assert counts.rows == {
        "runs": 5,
        "events": 10,
        "reviews": 5,
        "chat_messages": 5,
        "outbox": 5,
        "asked": 5,
        "a2a_tasks": 5,
        "deliveries": 5,
        "inbox": 0,
    }
    assert table_counts(store) == {
        "runs": 1,
        "events": 2,
        "reviews": 1,
        "chat_messages": 1,
        "outbox": 1,
        "asked": 1,
        "a2a_tasks": 1,
        "deliveries": 0,
    }


def test_prune_with_more_rows_than_a_batch_commits_each_batch_on_its_own(store: RunStore) -> None:
    for i in range(5):
        add_run(store, f"old{i}", "done", OLD)
        store.claim_delivery(f"key{i}", OLD)
    statements: list[str] = []
    store.db.conn.set_trace_callback(statements.append)
    store.prune(CUTOFF, dry_run=False, batch=2)
    store.db.conn.set_trace_callback(None)
    # Runs in batches of 2, 2, 1, delivery keys in 2, 2, 1 and the inbox's done rows in one (none here): seven
    # transactions, none spanning two batches.
    assert [s for s in statements if s in ("BEGIN IMMEDIATE", "COMMIT")] == ["BEGIN IMMEDIATE", "COMMIT"] * 7


def test_prune_with_nothing_old_enough_deletes_nothing(store: RunStore) -> None:
    add_run(store, "recent", "done", RECENT)
    before = table_counts(store)
    assert sum(store.prune(CUTOFF, dry_run=False).rows.values()) == 0
    assert table_counts(store) == before
