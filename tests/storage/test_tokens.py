"""API tokens on both backends: kept by hash (never in clear), listed, revoked once, checked by scope."""

from __future__ import annotations

from agent.models import WEBHOOK, AuditEvent, HandoffWebhook, Outbound, Review, RunEnded, RunState
from agent.models.tokens import ApiToken, AskedRecord, TaskRecord
from agent.ports import Store
from agent.tokens import check, hash_token, mint
from bot.origin import SlackThread

T0 = 1_700_000_000.0


async def test_token_created_is_found_by_the_hash_of_its_token_and_never_kept_in_clear(store: Store) -> None:
    made = mint("ci", ["handoffs:write", "handoffs:read"], "alice", T0)

    assert await store.create_token(made.stored)

    found = await store.token_by_hash(hash_token(made.token))
    assert found is not None and found.name == "ci" and found.scopes == ["handoffs:write", "handoffs:read"]
    assert found.webhook_secret == made.webhook_secret
    assert made.token not in found.model_dump_json()
    assert await store.token_by_hash(hash_token(made.token + "x")) is None


async def test_token_with_a_name_taken_is_refused_and_the_first_kept(store: Store) -> None:
    first = mint("ci", ["handoffs:read"], "alice", T0)
    assert await store.create_token(first.stored)

    assert not await store.create_token(mint("ci", ["handoffs:write"], "bob", T0 + 1).stored)

    assert [(t.name, t.created_by) for t in await store.list_tokens()] == [("ci", "alice")]


async def test_token_revoked_is_listed_as_revoked_and_refused_by_check(store: Store) -> None:
    made = mint("ci", ["handoffs:read"], "alice", T0)
    await store.create_token(made.stored)
    await store.create_token(mint("deploys", ["handoffs:write"], "alice", T0 + 1).stored)

    assert await store.revoke_token("ci", "bob", T0 + 5)
    assert not await store.revoke_token("ci", "bob", T0 + 6)  # once
    assert not await store.revoke_token("nobody", "bob", T0 + 6)

    listed = {t.name: t for t in await store.list_tokens()}
    assert (listed["ci"].revoked_by, listed["ci"].revoked_at) == ("bob", T0 + 5)
    assert listed["deploys"].revoked_at is None
    stored = await store.token_by_hash(hash_token(made.token))
    assert check(stored, made.token, "handoffs:read", T0 + 10) == "revoked"


def test_token_check_refuses_missing_wrong_expired_and_unscoped_tokens() -> None:
    made = mint("ci", ["handoffs:read"], "alice", T0, expires_at=T0 + 60)
    stored: ApiToken = made.stored

    assert check(stored, made.token, "handoffs:read", T0 + 1) == stored
    assert check(stored, "", "handoffs:read", T0 + 1) == "missing"
    assert check(stored, "tdm_not-the-token", "handoffs:read", T0 + 1) == "unknown"
    assert check(None, made.token, "handoffs:read", T0 + 1) == "unknown"
    assert check(stored, made.token, "handoffs:write", T0 + 1) == "scope"
    assert check(stored, made.token, "handoffs:read", T0 + 60) == "expired"
    assert stored.principal == "token:ci"


async def test_asked_with_a_key_its_token_used_before_returns_the_first_and_another_tokens_key_is_its_own(
    store: Store,
) -> None:
    first = AskedRecord(id="h1", token="ci", idempotency_key="deploy-981", created_at=T0)
    kept = await store.keep_asked(first)
    again = await store.keep_asked(first.model_copy(update={"id": "h2", "created_at": T0 + 1}))
    other = await store.keep_asked(first.model_copy(update={"id": "h3", "token": "other"}))
    keyless = await store.keep_asked(AskedRecord(id="h4", token="ci", created_at=T0))
    keyless_too = await store.keep_asked(AskedRecord(id="h5", token="ci", created_at=T0))

    assert (kept.id, again.id, other.id, keyless.id, keyless_too.id) == ("h1", "h1", "h3", "h4", "h5")
    assert await store.asked("h2") is None  # nothing was written for the repeat
    found = await store.asked("h1")
    assert found is not None and (found.token, found.idempotency_key) == ("ci", "deploy-981")


async def test_webhook_written_with_a_runs_commit_goes_to_the_webhook_channel(store: Store) -> None:
    pending = Review(id="r9", anchor="after_plan", created_at=T0)
    origin = SlackThread(channel_id="C1", thread_ts="1.2")
    asking = RunState(id="r9", task="t", requester="token:ci", created_at=T0, updated_at=T0, origin=origin)
    started = AuditEvent(at=T0, actor="token:ci", kind="started", payload={})
    version = await store.create(
        asking.model_copy(update={"phase": "awaiting_review", "pending": pending}), [started], pending
    )
    ended = asking.model_copy(update={"phase": "done", "updated_at": T0 + 5})
    finished = AuditEvent(at=T0 + 5, actor="U1", kind="finished", payload={})
    hook = HandoffWebhook(url="https://ci.example.com/hook", event_id="evt_r9")

    await store.commit(ended, version, [finished], outbox=Outbound("slack", [RunEnded(status="done"), hook]))

    assert [d.message for d in await store.due_deliveries(WEBHOOK, T0 + 10, 60)] == [hook]
    assert [d.message.kind for d in await store.due_deliveries("slack", T0 + 10, 60)] == ["finished"]


async def test_a2a_task_kept_twice_for_one_message_keeps_the_first_run(store: Store) -> None:
    first = TaskRecord(id="run1", token="ci", context_id="ctx-7", message_id="m-1", created_at=T0)
    again = TaskRecord(id="run2", token="ci", context_id="ctx-8", message_id="m-1", created_at=T0 + 1)
    other = TaskRecord(id="run3", token="ops", context_id="run3", message_id="m-1", created_at=T0 + 2)

    assert await store.keep_task(first) == first
    assert await store.keep_task(again) == first, "the same token's message finds the run it started"
    assert await store.keep_task(other) == other, "message ids are the token's own"

    assert await store.task_by_id("run1") == first and await store.task_by_id("run2") is None
    assert await store.task_by_message("ops", "m-1") == other
    assert await store.task_by_message("ci", "m-2") is None
