"""The storage contract: what any backend of :class:`agent.ports.Store` must do, through its async interface.

Every test runs once per backend (``tests/storage/conftest.py``); none looks at SQL or files.
"""

from __future__ import annotations

import asyncio

import pytest

from agent.errors import ConcurrentUpdate, StaleDecision, UnknownRun
from agent.models import (
    Answered,
    AuditEvent,
    CardRefresh,
    Claim,
    Delivery,
    DueReview,
    GateDecision,
    Lease,
    Lesson,
    NewsLine,
    Outgoing,
    OutgoingKind,
    PostedMessage,
    Review,
    ReviewAsked,
    Rule,
    RuleSuspension,
    StepPlace,
)
from agent.ports import Store
from tests.storage.kit import T0, event, run

DAY = 86_400.0
SLACK = "slack"


def review(review_id: str = "rv1", **fields: object) -> Review:
    data: dict[str, object] = {"id": review_id, "anchor": "after_plan", "created_at": T0}
    data.update(fields)
    return Review.model_validate(data)


async def paused(store: Store, run_id: str = "r1", review_id: str = "rv1", **fields: object) -> int:
    """A run waiting at a review; returns its version."""
    pending = review(review_id, **fields)
    return await store.create(run(run_id, phase="awaiting_review", pending=pending), [event("started")], pending)


async def one_row(store: Store, run_id: str = "r1", kind: OutgoingKind = "notify", at: float = T0) -> int:
    message = CardRefresh() if kind == "card" else NewsLine(text=kind)
    await store.add_outgoing(run_id, SLACK, [message], at)
    [row] = [d for d in await store.due_deliveries(SLACK, at + 1, 60) if d.message.kind == kind]
    return row.id


# --- runs ---------------------------------------------------------------------------


async def test_create_then_load_returns_the_run_at_version_one(store: Store) -> None:
    state = run(phase="executing")
    assert await store.create(state, [event("started")]) == 1
    assert await store.load("r1") == (state, 1)
    assert await store.events("r1") == [event("started")]


async def test_version_is_the_stored_runs_version_and_none_for_an_unknown_run(store: Store) -> None:
    assert await store.version("r1") is None
    await store.create(run(), [event("started")])
    assert await store.version("r1") == 1
    await store.commit(run(phase="executing", updated_at=T0 + 1), 1, [])
    assert await store.version("r1") == 2


async def test_load_unknown_run_raises_unknown_run(store: Store) -> None:
    with pytest.raises(UnknownRun, match="nope"):
        await store.load("nope")


async def test_commit_with_current_version_bumps_it_and_appends_events(store: Store) -> None:
    await store.create(run(), [event("started")])
    moved = run(phase="executing", updated_at=T0 + 1)
    assert await store.commit(moved, 1, [event("moved", T0 + 1)]) == 2
    assert await store.load("r1") == (moved, 2)
    assert [e.kind for e in await store.events("r1")] == ["started", "moved"]


async def test_commit_not_waiting_for_disk_is_seen_and_versioned_like_any_other(store: Store) -> None:
    version = await paused(store)
    moved = run(phase="executing", updated_at=T0 + 1)
    answered = Answered("rv1", "U2", T0 + 1, {"kind": "approve"})
    assert await store.commit(moved, version, [event("moved", T0 + 1)], answered=answered, durable=False) == 2
    assert await store.load("r1") == (moved, 2)
    record = await store.get_review("rv1")
    assert record is not None and record.status == "answered" and record.answered_by == "U2"
    with pytest.raises(ConcurrentUpdate, match="r1"):
        await store.commit(run(phase="done"), version, [], durable=False)
    assert await store.commit(run(phase="done", updated_at=T0 + 2), 2, [event("done", T0 + 2)]) == 3
    assert [e.kind for e in await store.events("r1")] == ["started", "moved", "done"]


async def test_commit_with_stale_version_raises_concurrent_update_and_writes_nothing(store: Store) -> None:
    await store.create(run(), [event("started")])
    await store.commit(run(phase="executing"), 1, [])
    with pytest.raises(ConcurrentUpdate, match="r1"):
        await store.commit(
            run(phase="done"),
            1,
            [event("late")],
            rules=[Rule(id="ru1", channel="C1", tool="restart", created_by="U1", created_at=T0)],
            outbox=(SLACK, [NewsLine(text="")]),
        )
    state, version = await store.load("r1")
    assert (state.phase, version) == ("executing", 2)
    assert [e.kind for e in await store.events("r1")] == ["started"]
    assert await store.rules("C1") == []
    assert await store.due_deliveries(SLACK, T0 + 10, 60) == []


async def test_find_with_prefix_returns_matching_ids_only(store: Store) -> None:
    for run_id in ("abc1", "abc2", "xyz"):
        await store.create(run(run_id), [])
    assert sorted(await store.find("abc")) == ["abc1", "abc2"]
    assert await store.find("xyz") == ["xyz"]
    assert await store.find("nope") == []
    # LIKE's wildcards in a typed prefix are plain characters: no run id contains them
    assert await store.find("%") == [] and await store.find("a%") == []
    assert await store.find("a_c") == [] and await store.find("_") == []


async def test_find_with_many_matches_returns_at_most_three(store: Store) -> None:
    for i in range(5):
        await store.create(run(f"abc{i}"), [])
    found = await store.find("abc")
    assert len(found) == 3 and set(found) <= {f"abc{i}" for i in range(5)}


async def test_list_runs_with_filters_returns_newest_first_within_limit(store: Store) -> None:
    await store.create(run("old", at=T0, channel="C1", phase="done"), [])
    await store.create(run("mid", at=T0 + 1, channel="C2"), [])
    await store.create(run("new", at=T0 + 2, channel="C1"), [])
    assert [s.id for s in await store.list_runs()] == ["new", "mid", "old"]
    assert [s.id for s in await store.list_runs(channel="C1")] == ["new", "old"]
    assert [s.id for s in await store.list_runs(status="done")] == ["old"]
    assert [s.id for s in await store.list_runs(status="planning", channel="C1")] == ["new"]
    assert [s.id for s in await store.list_runs(limit=1)] == ["new"]
    [summary] = await store.list_runs(status="done")
    assert (summary.task, summary.requester, summary.scope) == ("restart payments", "U1", "C1")


async def test_runs_in_flight_with_mixed_runs_returns_only_working_ones(store: Store) -> None:
    await store.create(run("planning"), [])
    await store.create(run("executing", phase="executing"), [])
    await paused(store, "waiting")
    for phase in ("done", "cancelled", "failed"):
        await store.create(run(phase, phase=phase), [])
    assert sorted(await store.runs_in_flight()) == ["executing", "planning"]


async def test_append_events_with_outbox_writes_both_and_keeps_the_version(store: Store) -> None:
    await store.create(run(), [event("started")])
    await store.append_events("r1", [event("refused", T0 + 5)], (SLACK, [NewsLine(text="no")]))
    assert [e.kind for e in await store.events("r1")] == ["started", "refused"]
    assert (await store.load("r1"))[1] == 1
    [row] = await store.due_deliveries(SLACK, T0 + 5, 60)
    assert (row.run_id, row.message, row.created_at) == ("r1", NewsLine(text="no"), T0 + 5)


async def test_run_for_thread_with_known_thread_returns_its_run(store: Store) -> None:
    await store.create(run(), [])
    assert await store.run_for_thread(f"C1:{T0}.r1") == "r1"
    assert await store.run_for_thread("C1:1.2") is None


# --- reviews --------------------------------------------------------------------------


async def test_get_review_after_create_returns_it_pending(store: Store) -> None:
    await paused(store)
    record = await store.get_review("rv1")
    assert record is not None
    assert (record.run_id, record.anchor, record.status, record.answered_by) == ("r1", "after_plan", "pending", None)
    assert await store.get_review("nope") is None


async def test_commit_answering_a_review_records_who_and_what(store: Store) -> None:
    await paused(store)
    await store.commit(run(phase="executing"), 1, [], answered=("rv1", "U2", T0 + 3, {"kind": "approve"}))
    record = await store.get_review("rv1")
    assert record is not None
    assert (record.status, record.answered_by, record.answered_at, record.answer) == (
        "answered",
        "U2",
        T0 + 3,
        {"kind": "approve"},
    )


async def test_commit_answering_a_review_twice_raises_stale_decision_naming_the_first(store: Store) -> None:
    await paused(store)
    await store.commit(run(phase="executing"), 1, [], answered=("rv1", "U2", T0 + 3, {"kind": "approve"}))
    with pytest.raises(StaleDecision, match="U2") as raised:
        await store.commit(run(phase="done"), 2, [event("late")], answered=("rv1", "U3", T0 + 4, {"kind": "reject"}))
    assert (raised.value.decided_by, raised.value.decided_at) == ("U2", T0 + 3)
    assert (await store.load("r1"))[1] == 2
    assert [e.kind for e in await store.events("r1")] == ["started"]


async def test_commit_answering_a_closed_review_raises_stale_decision(store: Store) -> None:
    await paused(store)
    await store.commit(run(phase="executing"), 1, [], closed="rv1")
    record = await store.get_review("rv1")
    assert record is not None and record.status == "closed"
    with pytest.raises(StaleDecision, match="no longer open"):
        await store.commit(run(phase="done"), 2, [], answered=("rv1", "U2", T0, {"kind": "approve"}))


async def test_commit_answering_an_unknown_review_raises_stale_decision(store: Store) -> None:
    await store.create(run(), [])
    with pytest.raises(StaleDecision, match="Unknown review"):
        await store.commit(run(phase="done"), 1, [], answered=("nope", "U2", T0, {"kind": "approve"}))


async def test_due_reviews_by_deadline_and_reminder_returns_due_ones_only(store: Store) -> None:
    await paused(store, "r1", "late", deadline=T0 + 10)
    await paused(store, "r2", "nudge", remind_at=T0 + 10, deadline=T0 + 100)
    await paused(store, "r3", "later", deadline=T0 + 100)
    await paused(store, "r4", "never")
    due = await store.due_reviews(T0 + 10)
    assert sorted(due, key=lambda d: d.review_id) == [
        DueReview(review_id="late", run_id="r1"),
        DueReview(review_id="nudge", run_id="r2"),
    ]
    assert await store.due_reviews(T0 + 9) == []
    assert len(await store.due_reviews(T0 + 100)) == 3


async def test_due_reviews_with_limit_returns_at_most_limit(store: Store) -> None:
    for i in range(5):
        await paused(store, f"r{i}", f"rv{i}", deadline=T0, remind_at=T0)
    assert len(await store.due_reviews(T0, limit=2)) == 2
    assert len(await store.due_reviews(T0)) == 5


async def test_due_reviews_of_answered_or_closed_reviews_returns_none(store: Store) -> None:
    await paused(store, "r1", "rv1", deadline=T0)
    await paused(store, "r2", "rv2", deadline=T0)
    await store.commit(run("r1", phase="executing"), 1, [], answered=("rv1", "U2", T0, {"kind": "approve"}))
    await store.commit(run("r2", phase="executing"), 1, [], closed="rv2")
    assert await store.due_reviews(T0 + 1) == []


async def test_commit_with_reschedule_moves_the_pending_reviews_deadline(store: Store) -> None:
    await paused(store, deadline=T0 + 10, remind_at=T0 + 5)
    later = review(deadline=T0 + 100, remind_at=T0 + 90)
    await store.commit(run(phase="awaiting_review", pending=later), 1, [], reschedule=True)
    assert await store.due_reviews(T0 + 50) == []
    assert await store.due_reviews(T0 + 90) == [DueReview(review_id="rv1", run_id="r1")]


async def test_commit_opening_a_review_stores_it_pending(store: Store) -> None:
    await store.create(run(), [])
    gate = review("gate", anchor="before_risky_step", step=1, deadline=T0 + 5)
    await store.commit(run(phase="awaiting_review", pending=gate), 1, [], opened=gate)
    record = await store.get_review("gate")
    assert record is not None and (record.status, record.step) == ("pending", 1)
    assert await store.due_reviews(T0 + 5) == [DueReview(review_id="gate", run_id="r1")]


# --- rules ------------------------------------------------------------------------------


def rule(rule_id: str, channel: str = "C1", at: float = T0) -> Rule:
    return Rule(id=rule_id, channel=channel, tool="restart", created_by="U1", created_at=at)


async def test_rules_after_add_returns_the_channels_rules_oldest_first(store: Store) -> None:
    await store.add_rule(rule("b", at=T0 + 1))
    await store.add_rule(rule("a", at=T0))
    await store.add_rule(rule("other", channel="C2"))
    assert await store.rules("C1") == [rule("a", at=T0), rule("b", at=T0 + 1)]


async def test_revoke_rule_returns_it_once_and_drops_it_from_rules(store: Store) -> None:
    await store.add_rule(rule("a"))
    assert await store.revoke_rule("a", "U2", T0 + 1) == rule("a")
    assert await store.rules("C1") == []
    assert await store.revoke_rule("a", "U2", T0 + 2) is None
    assert await store.revoke_rule("nope", "U2", T0) is None


async def test_commit_with_rules_adds_them(store: Store) -> None:
    await store.create(run(), [])
    await store.commit(run(phase="executing"), 1, [], rules=[rule("a")])
    assert await store.rules("C1") == [rule("a")]


def suspension(rule_id: str, at: float = T0 + 5) -> RuleSuspension:
    return RuleSuspension(rule_id=rule_id, tool="restart", by="U2", at=at, reason="step 1 was corrected")


async def test_suspend_rule_returns_it_once_and_drops_it_from_rules(store: Store) -> None:
    await store.add_rule(rule("a"))
    await store.add_rule(rule("b", at=T0 + 1))
    assert await store.suspend_rule(suspension("a")) == rule("a")
    assert await store.rules("C1") == [rule("b", at=T0 + 1)]
    assert await store.suspend_rule(suspension("a")) is None
    assert await store.suspend_rule(suspension("nope")) is None
    assert await store.revoke_rule("a", "U3", T0 + 9) == rule("a"), "a suspended rule is kept, so it can be revoked"


async def test_commit_with_suspended_rules_suspends_them_in_the_transition(store: Store) -> None:
    await store.create(run(), [])
    await store.add_rule(rule("a"))
    await store.commit(run(phase="executing"), 1, [], suspended=[suspension("a")])
    assert await store.rules("C1") == []
    with pytest.raises(ConcurrentUpdate):
        await store.commit(run(phase="executing"), 1, [], rules=[rule("c")], suspended=[suspension("c")])
    assert await store.rules("C1") == [], "a refused commit adds and suspends nothing"


GATE = "restart(service=…)"


def decided(by: str, kind: str, at: float, gate: str = GATE) -> AuditEvent:
    return AuditEvent(
        at=at, actor=by, kind="decided", payload={"review_id": "x", "decision": {"kind": kind}, "gate": gate}
    )


async def test_gate_history_returns_the_channels_decisions_at_that_shape_newest_first(store: Store) -> None:
    await store.create(run("r1"), [decided("U1", "approve", T0 + 1), decided("U2", "correct", T0 + 2)])
    await store.create(
        run("r2"),
        [
            decided("U3", "approve", T0 + 3),
            decided("U3", "approve", T0 + 4, gate="restart(region=…, service=…)"),
            AuditEvent(at=T0 + 5, actor="U3", kind="notify", payload={"gate": GATE}),
        ],
    )
    await store.create(run("r3", channel="C2"), [decided("U4", "approve", T0 + 6)])
    history = await store.gate_history("C1", GATE, "restart", 10)
    assert history == [
        GateDecision(run_id="r2", by="U3", at=T0 + 3, approved=True),
        GateDecision(run_id="r1", by="U2", at=T0 + 2, approved=False),
        GateDecision(run_id="r1", by="U1", at=T0 + 1, approved=True),
    ]
    assert await store.gate_history("C1", GATE, "restart", 2) == history[:2]
    assert await store.gate_history("C9", GATE, "restart", 10) == []


async def test_gate_history_counts_a_suspension_of_the_tools_rule_as_a_change(store: Store) -> None:
    line = AuditEvent(
        at=T0 + 2, actor="tandem", kind="suspend_rule", payload={"suspension": suspension("a").model_dump()}
    )
    await store.create(run("r1"), [decided("U1", "approve", T0 + 1), line, decided("U1", "approve", T0 + 3)])
    assert await store.gate_history("C1", GATE, "restart", 10) == [
        GateDecision(run_id="r1", by="U1", at=T0 + 3, approved=True),
        GateDecision(run_id="r1", by="U2", at=T0 + 2, approved=False),
        GateDecision(run_id="r1", by="U1", at=T0 + 1, approved=True),
    ]
    assert await store.gate_history("C1", GATE, "other", 10) == [
        GateDecision(run_id="r1", by="U1", at=T0 + 3, approved=True),
        GateDecision(run_id="r1", by="U1", at=T0 + 1, approved=True),
    ]


async def test_gate_history_counts_a_scoped_rules_suspension_only_against_its_own_shape(store: Store) -> None:
    payments, checkout = "restart(service=payments)", "restart(service=checkout)"
    scoped = suspension("a").model_copy(update={"shape": payments})
    line = AuditEvent(at=T0 + 2, actor="tandem", kind="suspend_rule", payload={"suspension": scoped.model_dump()})
    await store.create(
        run("r1"),
        [decided("U1", "approve", T0 + 1, gate=payments), decided("U1", "approve", T0 + 1.5, gate=checkout), line],
    )
    assert [d.approved for d in await store.gate_history("C1", payments, "restart", 10)] == [False, True]
    assert [d.approved for d in await store.gate_history("C1", checkout, "restart", 10)] == [True]


def scoped_rule(rule_id: str, service: str, at: float = T0) -> Rule:
    return rule(rule_id, at=at).model_copy(update={"target": {"service": service}})


async def test_rules_keep_each_rules_scope(store: Store) -> None:
    await store.add_rule(scoped_rule("p", "payments"))
    await store.add_rule(rule("w", at=T0 + 1))
    assert await store.rules("C1") == [scoped_rule("p", "payments"), rule("w", at=T0 + 1)]
    [payments, wide] = await store.rules("C1")
    assert payments.covers("restart", {"service": "payments"}) and not payments.covers("restart", {"service": "x"})
    assert wide.tool_wide and wide.covers("restart", {"service": "x"})


async def test_widen_rule_makes_it_tool_wide_once_and_keeps_who_and_when(store: Store) -> None:
    await store.add_rule(scoped_rule("p", "payments"))
    widened = await store.widen_rule("p", "U2", T0 + 5)
    assert widened == rule("p").model_copy(update={"widened_by": "U2", "widened_at": T0 + 5})
    assert await store.rules("C1") == [widened]
    assert await store.widen_rule("p", "U3", T0 + 6) is None, "a tool-wide rule has nothing to widen"
    assert await store.widen_rule("nope", "U3", T0 + 6) is None
    await store.add_rule(scoped_rule("q", "checkout", at=T0 + 7))
    await store.revoke_rule("q", "U2", T0 + 8)
    assert await store.widen_rule("q", "U2", T0 + 9) is None, "a revoked rule is not widened"


# --- chat -------------------------------------------------------------------------------


async def test_message_after_save_returns_the_posted_message(store: Store) -> None:
    await store.create(run(), [])
    await store.save_message("review:rv1", "r1", "C1", "1.5", [{"type": "divider"}])
    assert await store.message("review:rv1") == PostedMessage(channel="C1", ts="1.5", blocks=[{"type": "divider"}])
    await store.save_message("review:rv1", "r1", "C1", "1.6")
    assert await store.message("review:rv1") == PostedMessage(channel="C1", ts="1.6", blocks=[])
    assert await store.message("nope") is None


async def test_claim_delivery_with_the_same_key_is_true_only_once(store: Store) -> None:
    assert await store.claim_delivery("msg:C1:1.5", T0)
    assert not await store.claim_delivery("msg:C1:1.5", T0 + 1)
    assert await store.claim_delivery("msg:C1:1.6", T0)


async def test_claim_delivery_racing_on_one_key_has_one_winner(store: Store) -> None:
    results = await asyncio.gather(*(store.claim_delivery("k", T0) for _ in range(10)))
    assert sorted(results) == [False] * 9 + [True]


# --- the outbox -------------------------------------------------------------------------


async def test_create_with_outbox_writes_due_rows_in_order(store: Store) -> None:
    messages: list[Outgoing] = [ReviewAsked(review_id="rv1"), CardRefresh(), NewsLine(text="hi")]
    await store.create(run(), [], outbox=(SLACK, messages))
    rows = await store.due_deliveries(SLACK, T0, 60)
    assert [r.message for r in rows] == messages
    assert [r.id for r in rows] == sorted(r.id for r in rows)
    assert {(r.status, r.attempts, r.created_at) for r in rows} == {("pending", 0, T0)}
    assert await store.due_deliveries("feishu", T0, 60) == []
    assert len(await store.due_deliveries(SLACK, T0, 60, limit=2)) == 2


async def test_outbox_with_one_pending_card_coalesces_the_next(store: Store) -> None:
    await store.create(run(), [], outbox=(SLACK, [CardRefresh()]))
    await store.commit(run(updated_at=T0 + 1), 1, [], outbox=(SLACK, [CardRefresh(), CardRefresh()]))
    await store.add_outgoing("r1", SLACK, [CardRefresh()], T0 + 2)
    assert [r.message.kind for r in await store.due_deliveries(SLACK, T0 + 2, 60)] == ["card"]


def texts(rows: list[Delivery]) -> list[str]:
    """A label per row: a line's text, a review's id, else its kind."""
    return [r.message.text if isinstance(r.message, NewsLine) else r.message.review_id or r.message.kind for r in rows]


async def test_messages_of_a_commit_not_waiting_for_disk_are_held_until_the_runs_next_durable_commit(
    store: Store,
) -> None:
    version = await paused(store)
    held = (SLACK, [NewsLine(text="decided"), CardRefresh()])
    version = await store.commit(run(phase="executing", updated_at=T0 + 1), version, [], outbox=held, durable=False)
    assert await store.due_deliveries(SLACK, T0 + 10, 60) == [], "nobody is told before it is on disk"
    assert await store.busy_deliveries(SLACK, T0 + 10) == 0
    await store.create(run("r2"), [], outbox=(SLACK, [NewsLine(text="other")]))
    assert texts(await store.due_deliveries(SLACK, T0 + 10, 60)) == ["other"]
    own = (SLACK, [NewsLine(text="step 2"), ReviewAsked(review_id="gate")])
    await store.commit(run(phase="awaiting_review", updated_at=T0 + 2), version, [], outbox=own)
    due = [r for r in await store.due_deliveries(SLACK, T0 + 10, 60) if r.run_id == "r1"]
    assert texts(due) == ["decided", "step 2", "gate", "card"], "held first, the card drawn once, last"


async def test_held_messages_go_out_with_a_durable_commit_that_has_none_of_its_own(store: Store) -> None:
    version = await paused(store)
    held = (SLACK, [NewsLine(text="decided")])
    version = await store.commit(run(phase="executing", updated_at=T0 + 1), version, [], outbox=held, durable=False)
    await store.commit(run(phase="done", updated_at=T0 + 2), version, [])
    assert texts(await store.due_deliveries(SLACK, T0 + 10, 60)) == ["decided"]


async def test_release_outgoing_gives_out_held_messages_and_keeps_one_waiting_card(store: Store) -> None:
    version = await store.create(run(), [], outbox=(SLACK, [CardRefresh()]))
    held = (SLACK, [NewsLine(text="decided"), CardRefresh()])
    await store.commit(run(updated_at=T0 + 1), version, [], outbox=held, durable=False)
    assert texts(await store.due_deliveries(SLACK, T0 + 10, 60)) == ["card"]
    await store.release_outgoing("r1")
    assert texts(await store.due_deliveries(SLACK, T0 + 10, 60)) == ["card", "decided"]
    await store.release_outgoing("r1")  # nothing left to give out
    assert texts(await store.due_deliveries(SLACK, T0 + 10, 60)) == ["card", "decided"]


async def test_outbox_with_a_sent_card_queues_a_new_one(store: Store) -> None:
    row = await one_row(store, kind="card")
    assert (await store.claim_delivery_row(row, T0, 60)).claimed
    await store.delivered(row, T0 + 1)
    await store.add_outgoing("r1", SLACK, [CardRefresh()], T0 + 2)
    assert [r.id != row for r in await store.due_deliveries(SLACK, T0 + 2, 60)] == [True]


async def test_claim_delivery_row_twice_has_one_winner(store: Store) -> None:
    row = await one_row(store)
    first, second = await asyncio.gather(store.claim_delivery_row(row, T0, 60), store.claim_delivery_row(row, T0, 60))
    assert sorted([first.claimed, second.claimed]) == [False, True]
    assert not first.uncertain and not second.uncertain
    assert await store.due_deliveries(SLACK, T0 + 30, 60) == [], "a live claim hides the row"
    assert await store.claim_delivery_row(12345, T0, 60) == Claim(claimed=False, uncertain=False)


async def test_claim_delivery_row_after_the_lease_ran_out_takes_over_uncertain(store: Store) -> None:
    row = await one_row(store)
    assert await store.claim_delivery_row(row, T0, 60) == Claim(claimed=True, uncertain=False)
    assert not (await store.claim_delivery_row(row, T0 + 59, 60)).claimed
    [stale] = await store.due_deliveries(SLACK, T0 + 60, 60)
    assert (stale.id, stale.status) == (row, "pending")
    assert await store.claim_delivery_row(row, T0 + 60, 60) == Claim(claimed=True, uncertain=True)
    assert not (await store.claim_delivery_row(row, T0 + 61, 60)).claimed


async def test_renew_delivery_row_keeps_a_live_claim_past_the_lease_and_fails_once_taken_over(store: Store) -> None:
    row = await one_row(store)
    assert (await store.claim_delivery_row(row, T0, 10)).claimed
    assert await store.renew_delivery_row(row, T0, T0 + 8)
    assert await store.renew_delivery_row(row, T0 + 8, T0 + 16)
    assert await store.due_deliveries(SLACK, T0 + 25, 10) == [], "renewed at T0 + 16: held until T0 + 26"
    assert not (await store.claim_delivery_row(row, T0 + 25, 10)).claimed
    assert not await store.renew_delivery_row(row, T0, T0 + 25), "only the latest stamp renews"
    # the owner stops renewing (it died): the lease runs out and another worker takes over, uncertain
    assert await store.claim_delivery_row(row, T0 + 26, 10) == Claim(claimed=True, uncertain=True)
    assert not await store.renew_delivery_row(row, T0 + 16, T0 + 27), "the old owner's claim is gone"
    assert await store.renew_delivery_row(row, T0 + 26, T0 + 27)
    await store.delivered(row, T0 + 28)
    assert not await store.renew_delivery_row(row, T0 + 27, T0 + 29), "a sent row is held by nobody"


async def test_delivered_row_is_no_longer_due_or_busy(store: Store) -> None:
    row = await one_row(store)
    assert await store.busy_deliveries(SLACK, T0) == 1
    await store.claim_delivery_row(row, T0, 60)
    assert await store.busy_deliveries(SLACK, T0) == 0, "a row being sent no longer waits (its sender counts it)"
    await store.delivered(row, T0 + 1)
    assert await store.due_deliveries(SLACK, T0 + 1000, 60) == []
    assert await store.busy_deliveries(SLACK, T0 + 1000) == 0
    assert await store.delivery_status("r1", "notify", "") is None


async def test_retry_delivery_sets_backoff_fields_and_hides_the_row_until_then(store: Store) -> None:
    row = await one_row(store)
    await store.claim_delivery_row(row, T0, 60)
    await store.retry_delivery(row, 1, T0 + 30, "ratelimited")
    assert await store.due_deliveries(SLACK, T0 + 29, 60) == []
    assert await store.busy_deliveries(SLACK, T0 + 29) == 0
    [again] = await store.due_deliveries(SLACK, T0 + 30, 60)
    assert (again.id, again.status, again.attempts, again.next_at, again.error) == (
        row,
        "pending",
        1,
        T0 + 30,
        "ratelimited",
    )
    assert [d.id for d in await store.undelivered("r1")] == [row], "still failing counts as undelivered"
    assert (await store.claim_delivery_row(row, T0 + 30, 60)).claimed


async def test_retry_delivery_of_a_superseded_card_drops_it(store: Store) -> None:
    row = await one_row(store, kind="card")
    await store.claim_delivery_row(row, T0, 60)
    await store.add_outgoing("r1", SLACK, [CardRefresh()], T0 + 1)
    await store.retry_delivery(row, 1, T0 + 2, "timeout")
    assert [r.id != row for r in await store.due_deliveries(SLACK, T0 + 10, 60)] == [True], "only the newer card"


async def test_fail_delivery_then_redeliver_gives_a_fresh_start(store: Store) -> None:
    await store.create(run("r1"), [])
    await store.create(run("r2"), [])
    row = await one_row(store, "r1")
    await store.claim_delivery_row(row, T0, 60)
    await store.fail_delivery(row, 5, "msg_too_long")
    assert await store.due_deliveries(SLACK, T0 + 1000, 60) == []
    [failed] = await store.undelivered("r1")
    assert (failed.id, failed.status, failed.attempts, failed.error) == (row, "failed", 5, "msg_too_long")
    assert await store.undelivered_runs(["r1", "r2"]) == {"r1": 1}
    assert await store.undelivered_runs([]) == {}
    assert await store.redeliver("r1", T0 + 50) == 1
    assert await store.redeliver("r1", T0 + 50) == 0
    [fresh] = await store.due_deliveries(SLACK, T0 + 50, 60)
    assert (fresh.id, fresh.attempts, fresh.next_at) == (row, 0, T0 + 50)
    assert await store.undelivered_runs(["r1"]) == {}


async def test_delivery_status_returns_the_latest_rows_status_for_a_review(store: Store) -> None:
    await store.create(run(), [], outbox=(SLACK, [ReviewAsked(review_id="rv1")]))
    assert await store.delivery_status("r1", "review", "rv1") == "pending"
    [row] = await store.due_deliveries(SLACK, T0, 60)
    await store.claim_delivery_row(row.id, T0, 60)
    assert await store.delivery_status("r1", "review", "rv1") == "sending"
    await store.delivered(row.id, T0)
    assert await store.delivery_status("r1", "review", "rv1") == "sent"
    assert await store.delivery_status("r1", "review", "rv2") is None


# --- step leases ------------------------------------------------------------------------


async def test_lease_set_by_create_and_commit_is_cleared_by_a_commit_without_one(store: Store) -> None:
    await store.create(run(phase="executing"), [], lease=("proc-a", T0 + 30))
    assert await store.lease("r1") == Lease(owner="proc-a", until=T0 + 30)
    await store.commit(run(phase="executing"), 1, [], lease=("proc-b", T0 + 60))
    assert await store.lease("r1") == Lease(owner="proc-b", until=T0 + 60)
    await store.commit(run(phase="awaiting_review"), 2, [])
    assert await store.lease("r1") is None
    assert await store.lease("nope") is None


async def test_renew_lease_by_its_owner_only_moves_it(store: Store) -> None:
    await store.create(run(phase="executing"), [], lease=("proc-a", T0 + 30))
    assert not await store.renew_lease("r1", "proc-b", T0 + 90)
    assert await store.lease("r1") == Lease(owner="proc-a", until=T0 + 30)
    assert await store.renew_lease("r1", "proc-a", T0 + 60)
    assert await store.lease("r1") == Lease(owner="proc-a", until=T0 + 60)
    await store.commit(run(phase="awaiting_review"), 1, [])
    assert not await store.renew_lease("r1", "proc-a", T0 + 90), "a cleared lease is nobody's"


# --- retention and health ---------------------------------------------------------------


async def test_prune_deletes_old_finished_runs_whole_and_keeps_the_rest(store: Store) -> None:
    old = T0 - 200 * DAY
    await store.create(run("gone", at=old, phase="done"), [event("started", old)], outbox=(SLACK, [CardRefresh()]))
    await store.save_message("card:gone", "gone", "C1", "1.1")
    await store.create(run("waiting", at=old), [])
    await store.create(run("recent", at=T0, phase="done"), [])
    await store.claim_delivery("old-key", old)
    dry = await store.prune(T0 - 90 * DAY, dry_run=True)
    assert dry.dry_run and dry.rows["runs"] == 1
    assert len(await store.list_runs()) == 3
    counts = await store.prune(T0 - 90 * DAY, dry_run=False)
    assert counts.rows == dry.rows
    assert counts.rows["runs"] == 1 and counts.rows["deliveries"] == 1
    assert sorted(s.id for s in await store.list_runs()) == ["recent", "waiting"]
    assert await store.events("gone") == [] and await store.message("card:gone") is None
    assert await store.due_deliveries(SLACK, T0, 60) == []
    assert await store.claim_delivery("old-key", T0), "a pruned key may be seen again"


async def test_ping_on_an_open_store_returns_and_is_open(store: Store) -> None:
    await store.ping()
    assert store.is_open


# --- lessons ----------------------------------------------------------------------------


def lesson(lesson_id: str, scope: str = "C1", at: float = T0, **fields: object) -> Lesson:
    data: dict[str, object] = {
        "id": lesson_id,
        "run_id": "r1",
        "scope": scope,
        "anchor": "after_plan",
        "intent": "retry_step",
        "tool": "scale_service",
        "target": {"service": "payments"},
        "before": {"replicas": 2},
        "after": {"replicas": 4},
        "text": "use 4 replicas for payments",
        "by": "U1",
        "created_at": at,
    }
    data.update(fields)
    return Lesson.model_validate(data)


async def learned(store: Store, *lessons: Lesson) -> None:
    """Commit ``lessons`` the way the runtime does: with a transition of the run."""
    version = await store.create(run(), [event("started")])
    await store.commit(run(phase="executing"), version, [event("corrected")], lessons=list(lessons))


async def test_commit_with_lessons_adds_them_newest_first(store: Store) -> None:
    other = lesson("b", at=T0 + 1, tool="restart_service", target={}, before={}, after={}, text="check logs first")
    await learned(store, lesson("a"), other)
    assert await store.lessons("C1") == [other, lesson("a")]
    assert await store.get_lesson("a") == lesson("a")
    assert await store.get_lesson("nope") is None


async def test_commit_with_stale_version_writes_no_lesson(store: Store) -> None:
    await store.create(run(), [event("started")])
    await store.commit(run(phase="executing"), 1, [])
    with pytest.raises(ConcurrentUpdate):
        await store.commit(run(phase="done"), 1, [], lessons=[lesson("a")])
    assert await store.lessons(None) == []


async def test_lessons_of_a_scope_leave_other_scopes_out_and_none_lists_all(store: Store) -> None:
    await learned(store, lesson("a"), lesson("b", scope="C2", at=T0 + 1))
    assert [x.id for x in await store.lessons("C1")] == ["a"]
    assert [x.id for x in await store.lessons("")] == []
    assert [x.id for x in await store.lessons(None)] == ["b", "a"]


async def test_find_lessons_matches_words_of_the_task_in_its_scope_only(store: Store) -> None:
    logs = lesson(
        "b", tool="restart_service", target={}, before={}, after={}, text="always check logs before a restart"
    )
    elsewhere = lesson("c", scope="C2", text="use 4 replicas for payments")
    await learned(store, lesson("a"), logs, elsewhere)
    assert [x.id for x in await store.find_lessons("C1", "scale payments up")] == ["a"]
    assert [x.id for x in await store.find_lessons("C1", "restarting checkout")] == ["b"]  # stems match
    assert await store.find_lessons("C1", "deploy orders 2.0") == []
    assert await store.find_lessons("C1", "   ") == []
    assert await store.find_lessons("C1", 'it\'s "quoted" OR (NEAR) * ^') == []  # search syntax is only words


async def test_lesson_with_the_same_tool_target_and_parameter_replaces_the_earlier_one(store: Store) -> None:
    first = lesson("a", after={"replicas": 4})
    later = lesson("b", at=T0 + 1, before={"replicas": 4}, after={"replicas": 6}, text="no, 6 replicas")
    other_target = lesson("c", target={"service": "checkout"})
    await learned(store, first, other_target)
    await store.commit(run(phase="executing"), 2, [], lessons=[later])
    assert [x.id for x in await store.lessons("C1")] == ["b", "c"]
    assert {x.id for x in await store.find_lessons("C1", "scale payments")} == {"b", "c"}
    replaced = await store.get_lesson("a")
    assert replaced is not None and replaced.replaced_by == "b" and not replaced.active
    assert [x.id for x in await store.lessons("C1", active=False)] == ["b", "a", "c"]  # newest, then by id


async def test_forget_lesson_returns_it_once_and_stops_finding_it(store: Store) -> None:
    await learned(store, lesson("a"))
    forgotten = await store.forget_lesson("a", "U2", T0 + 5)
    assert forgotten is not None and (forgotten.forgotten_by, forgotten.forgotten_at) == ("U2", T0 + 5)
    assert await store.forget_lesson("a", "U2", T0 + 6) is None
    assert await store.forget_lesson("nope", "U2", T0) is None
    assert await store.lessons("C1") == [] and await store.find_lessons("C1", "scale payments") == []
    kept = await store.get_lesson("a")
    assert kept is not None and kept.forgotten_by == "U2" and not kept.active


async def test_plan_correction_and_presentation_wish_of_one_run_both_stay(store: Store) -> None:
    moved = lesson(
        "a", tool="restart_service", target={}, before={}, after={}, text="read the logs first", intent="replan"
    )
    moved = moved.model_copy(update={"moved": [StepPlace(tool="read_logs", before="restart_service")]})
    table = lesson(
        "b", at=T0 + 1, tool=None, target={}, before={}, after={}, text="show it as a table", intent="refine_output"
    )
    await learned(store, moved, table)
    assert [x.id for x in await store.lessons("C1")] == ["b", "a"]
    again = lesson(
        "c",
        at=T0 + 2,
        tool=None,
        target={},
        before={},
        after={},
        text="Show it as a table, please",
        intent="refine_output",
    )
    await store.commit(run(phase="executing"), 2, [], lessons=[again])  # the same wish: replaces the first
    assert [x.id for x in await store.lessons("C1")] == ["c", "a"]


async def test_value_lessons_of_different_parameters_both_stay_and_a_step_lesson_replaces_its_place(
    store: Store,
) -> None:
    replicas = lesson("a")
    timeout = lesson("b", at=T0 + 1, before={"timeout": 30}, after={"timeout": 60}, text="give it 60 s")
    added = lesson("c", at=T0 + 2, tool="restart_service", target={}, before={}, after={}, text="check logs first")
    added = added.model_copy(update={"added": [StepPlace(tool="read_logs", before="restart_service")]})
    await learned(store, replicas, timeout, added)
    assert [x.id for x in await store.lessons("C1")] == ["c", "b", "a"]
    left_out = lesson("d", at=T0 + 3, tool="restart_service", target={}, before={}, after={}, text="skip the logs")
    left_out = left_out.model_copy(update={"removed": [StepPlace(tool="read_logs", before="restart_service")]})
    await store.commit(run(phase="executing"), 2, [], lessons=[left_out])  # the latest word on that step's place
    assert [x.id for x in await store.lessons("C1")] == ["d", "b", "a"]
