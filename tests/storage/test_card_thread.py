"""The storage contract for a run stored before its card: where the card was posted is kept beside the run,
and runs whose card was given up on are found until their requester is told (every backend)."""

from __future__ import annotations

from agent.models import AuditEvent, CardRefresh, NotStarted, Outbound, RunStarted, RunState
from agent.ports import Store
from bot.origin import SlackThread

T0 = 1_000_000.0
SLACK = "slack"


def unposted(**fields: object) -> RunState:
    data: dict[str, object] = {
        "id": "r1",
        "task": "restart payments",
        "requester": "U1",
        "created_at": T0,
        "updated_at": T0,
        "origin": SlackThread(channel_id="C1"),
    }
    return RunState.model_validate(data | fields)


async def test_card_posted_run_loads_with_its_thread_even_after_a_commit_read_before(store: Store) -> None:
    await store.create(unposted(), [], outbox=Outbound(SLACK, [RunStarted()]))
    before, version = await store.load("r1")
    assert before.origin.thread is None and await store.run_for_thread("C1:111.1") is None
    assert await store.card_posted("r1", "C1:111.1")
    await store.commit(unposted(phase="executing", updated_at=T0 + 1), version, [])  # read before the card
    after, _ = await store.load("r1")
    assert after.origin == SlackThread(channel_id="C1", thread_ts="111.1") and after.phase == "executing"
    assert await store.run_for_thread("C1:111.1") == "r1"
    assert not await store.card_posted("r1", "C1:222.2"), "a run's thread never moves"
    assert (await store.load("r1"))[0].origin.thread == "C1:111.1"


async def test_unshown_runs_lists_a_given_up_card_until_the_requester_is_told(store: Store) -> None:
    await store.create(unposted(), [], outbox=Outbound(SLACK, [RunStarted(), CardRefresh()]))
    assert await store.unshown_runs() == []
    [started] = [d for d in await store.due_deliveries(SLACK, T0 + 1, 60) if d.message.kind == "started"]
    assert await store.delivery_status("r1", "started", None) == "pending"
    assert (await store.claim_delivery_row(started.id, T0 + 1, 60)).claimed
    await store.fail_delivery(started.id, 8, "internal_error")
    assert await store.unshown_runs() == [("r1", "internal_error")]
    told = AuditEvent(at=T0 + 2, actor="tandem", kind="card_undelivered", payload={})
    await store.append_events("r1", [told], Outbound(SLACK, [NotStarted(error="internal_error")]))
    assert await store.unshown_runs() == []
