"""A decided handoff's ``callback_url`` gets one signed POST through the outbox, over real HTTP: the receiver
checks it with :func:`api.webhooks.verify`, as the README shows callers to."""

from __future__ import annotations

from pathlib import Path

from agent.models import WEBHOOK
from blocks import ids
from tests.scenario.asking import ASK, api, asked_in_thread
from tests.scenario.harness import Env, policy_file
from tests.scenario.webhook_receiver import receiving


async def _webhook_rows(env: Env, run_id: str) -> list[str]:
    rows = await env.bot.deps.store.due_deliveries(WEBHOOK, 10.0**12, 0.0)
    return [row.status for row in rows if row.run_id == run_id]


async def test_handoff_answered_by_a_click_posts_one_verified_webhook_with_the_answer(tmp_path: Path) -> None:
    async with api(tmp_path) as (env, http, made), receiving(made.webhook_secret) as receiver:
        created = await (await http.post("/api/v1/handoffs", json={**ASK, "callback_url": receiver.url})).json()
        question = await asked_in_thread(env, "Roll back checkout to v41?")

        await env.click("alice", question, f"{ids.ANSWER}.0")

        got = (await receiver.posts(1))[0]
        assert got.verified, got.headers
        assert got.headers["X-Tandem-Event-Id"] == got.json["event_id"] == f"evt_{created['id']}"
        assert (got.json["id"], got.json["status"], got.json["answer"], got.json["by"]) == (
            created["id"],
            "resolved",
            "roll back",
            "U0ALICE",
        )
        read = await (await http.get(f"/api/v1/handoffs/{created['id']}")).json()
        assert {k: v for k, v in got.json.items() if k != "event_id"} == {k: v for k, v in read.items() if k != "url"}
        assert env.bot.webhooks is not None
        await env.bot.webhooks.idle()
        assert len(receiver.received) == 1, "delivered once"
        assert await env.bot.deps.store.delivery_status(created["id"], "webhook", None) == "sent"


async def test_handoff_without_callback_url_writes_no_webhook(tmp_path: Path) -> None:
    async with api(tmp_path) as (env, http, _):
        created = await (await http.post("/api/v1/handoffs", json=ASK)).json()
        question = await asked_in_thread(env, "Roll back checkout to v41?")

        await env.click("alice", question, f"{ids.ANSWER}.0")

        read = await (await http.get(f"/api/v1/handoffs/{created['id']}", params={"wait": "10"})).json()
        assert read["status"] == "resolved"
        assert await env.bot.deps.store.delivery_status(created["id"], "finished", None) is not None
        assert await env.bot.deps.store.delivery_status(created["id"], "webhook", None) is None


async def test_handoff_webhook_answered_500_twice_then_200_is_retried_until_delivered(tmp_path: Path) -> None:
    async with api(tmp_path) as (env, http, made), receiving(made.webhook_secret, [500, 500]) as receiver:
        assert env.bot.webhooks is not None
        env.bot.webhooks.retry_scale = 0.01
        created = await (await http.post("/api/v1/handoffs", json={**ASK, "callback_url": receiver.url})).json()
        await asked_in_thread(env, "Roll back checkout to v41?")

        cancelled = await http.post(f"/api/v1/handoffs/{created['id']}/cancel")
        assert cancelled.status == 200

        await receiver.posts(3)
        await env.bot.webhooks.idle()
        assert [r.verified for r in receiver.received] == [True, True, True]
        assert {r.headers["X-Tandem-Event-Id"] for r in receiver.received} == {f"evt_{created['id']}"}
        assert receiver.received[-1].json["status"] == "cancelled"
        assert await _webhook_rows(env, created["id"]) == [], "nothing left to send"
        undelivered = await env.bot.deps.store.undelivered(created["id"])
        assert [d.message.kind for d in undelivered] == []


async def test_handoff_webhook_refused_with_410_fails_at_once_and_shows_as_undelivered(tmp_path: Path) -> None:
    async with api(tmp_path) as (env, http, made), receiving(made.webhook_secret, [410, 200]) as receiver:
        created = await (await http.post("/api/v1/handoffs", json={**ASK, "callback_url": receiver.url})).json()
        await asked_in_thread(env, "Roll back checkout to v41?")

        await http.post(f"/api/v1/handoffs/{created['id']}/cancel")

        await receiver.posts(1)
        assert env.bot.webhooks is not None
        await env.bot.webhooks.idle()
        undelivered = await env.bot.deps.store.undelivered(created["id"])
        assert [(d.message.kind, d.error) for d in undelivered] == [("webhook", f"POST {receiver.url} answered 410")]
        assert len(receiver.received) == 1, "a 4xx is not tried again"


async def test_handoff_timed_out_with_use_default_posts_timed_out_with_the_default(tmp_path: Path) -> None:
    async with (
        api(tmp_path, config=policy_file(tmp_path, "")) as (env, http, made),
        receiving(made.webhook_secret) as receiver,
    ):
        ask = {**ASK, "timeout": 1, "on_timeout": "use_default", "default": "keep v42", "callback_url": receiver.url}
        await (await http.post("/api/v1/handoffs", json=ask)).json()
        await asked_in_thread(env, "Roll back checkout to v41?")

        env.bot.deps.runtime.clock = lambda: 10.0**10  # past the deadline
        await env.bot.deps.runtime.tick()

        got = (await receiver.posts(1))[0]
        assert got.verified
        assert (got.json["status"], got.json["answer"]) == ("timed_out", "keep v42")


async def test_handoff_webhook_leaves_as_the_handoff_is_decided_not_at_the_next_poll(tmp_path: Path) -> None:
    async with api(tmp_path, delivery_poll=60.0) as (env, http, made), receiving(made.webhook_secret) as receiver:
        await (await http.post("/api/v1/handoffs", json={**ASK, "callback_url": receiver.url})).json()
        question = await asked_in_thread(env, "Roll back checkout to v41?")

        await env.click("alice", question, f"{ids.ANSWER}.1")

        got = (await receiver.posts(1, within=10))[0]  # well before the worker's next look, a minute away
        assert got.verified and got.json["answer"] == "keep v42"
