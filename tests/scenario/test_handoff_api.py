"""Other software asks your people over ``/api/v1`` on the real ``tandem serve`` app: the question appears in
the Slack thread (local Slack fake), a person answers with its buttons, and the API reports who answered."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp

from agent.tokens import mint
from blocks import ids
from tests.scenario.asking import ASK, api, asked_in_thread
from tests.scenario.harness import OPS, policy_file, running


async def test_handoff_created_over_http_is_answered_by_a_click_and_read_back_resolved(tmp_path: Path) -> None:
    async with api(tmp_path) as (env, http, _):
        created = await http.post("/api/v1/handoffs", json=ASK)
        assert created.status == 201, await created.text()
        body = await created.json()
        assert body["status"] == "pending" and body["url"].endswith(f"/api/v1/handoffs/{body['id']}")

        question = await asked_in_thread(env, "Roll back checkout to v41?")
        waiting = asyncio.create_task(http.get(f"/api/v1/handoffs/{body['id']}", params={"wait": "20"}))
        await env.click("alice", question, f"{ids.ANSWER}.0")  # served while the long poll waits

        read = await asyncio.wait_for(waiting, 10)  # it returns once answered, well before its 20 s
        got = await read.json()
        assert (got["status"], got["answer"], got["by"]) == ("resolved", "roll back", "U0ALICE")
        assert got["at"] is not None


async def test_handoff_answered_by_someone_not_assigned_is_refused_and_stays_pending(tmp_path: Path) -> None:
    async with api(tmp_path) as (env, http, _):
        body = await (await http.post("/api/v1/handoffs", json=ASK)).json()
        question = await asked_in_thread(env, "Roll back checkout to v41?")

        await env.click("carol", question, f"{ids.ANSWER}.1")

        await env.wait(lambda: bool(env.ws.state.ephemerals_for("U0CAROL")))
        read = await (await http.get(f"/api/v1/handoffs/{body['id']}")).json()
        assert (read["status"], read["answer"], read["by"]) == ("pending", None, None)
        assert "tandem.answer" in str(env.ws.state.message(OPS, question.ts).blocks), "the question stays open"


async def test_handoff_same_idempotency_key_returns_the_same_handoff_and_asks_once(tmp_path: Path) -> None:
    async with api(tmp_path) as (env, http, _):
        first = await http.post("/api/v1/handoffs", json={**ASK, "idempotency_key": "deploy-981"})
        again = await http.post("/api/v1/handoffs", json={**ASK, "idempotency_key": "deploy-981"})

        assert (first.status, again.status) == (201, 200)
        assert (await first.json())["id"] == (await again.json())["id"]
        await asked_in_thread(env, "Roll back checkout to v41?")
        await env.idle()
        assert len(env.cards()) == 1


async def test_handoff_card_drawn_after_its_question_was_asked_is_not_edited_until_something_changes(
    tmp_path: Path,
) -> None:
    async with api(tmp_path) as (env, http, _):
        body = await (await http.post("/api/v1/handoffs", json=ASK)).json()
        question = await asked_in_thread(env, "Roll back checkout to v41?")
        await env.idle()
        [card] = env.cards()

        def edits() -> int:
            return len([c for c in env.ws.state.calls_to("chat.update") if c.ok and c.params.get("ts") == card.ts])

        assert edits() == 0, "the card was posted showing the question: its first edit would change nothing"
        await env.click("alice", question, f"{ids.ANSWER}.0")
        await env.wait(lambda: edits() >= 1)
        read = await (await http.get(f"/api/v1/handoffs/{body['id']}")).json()
        assert read["status"] == "resolved"
        await env.idle()
        assert "roll back" in str(env.ws.state.message(OPS, card.ts).blocks).lower(), "the answer shows on the card"


async def test_handoff_with_a_bad_field_gets_422_naming_it(tmp_path: Path) -> None:
    async with api(tmp_path) as (env, http, _):
        cases = [
            ({**ASK, "input_type": "colour"}, "input_type"),
            ({**ASK, "options": []}, "options"),
            ({**ASK, "channel": "general"}, "channel"),
            ({**ASK, "channel": "email:oncall"}, "not one mail address"),
            ({**ASK, "quorum": 2}, "quorum"),
            ({**ASK, "callback_url": "ftp://ci.example.com/hook"}, "callback_url"),
            ({**ASK, "callback_url": "ci.example.com/hook"}, "not an http or https URL"),
            ({k: v for k, v in ASK.items() if k != "prompt"}, "prompt"),
            ({**ASK, "assignees": []}, "assignees"),
        ]
        for sent, named in cases:
            answer = await http.post("/api/v1/handoffs", json=sent)
            assert answer.status == 422, (sent, await answer.text())
            assert named in (await answer.json())["detail"], sent
        assert env.cards() == []


async def test_handoff_read_with_a_wait_that_is_no_duration_gets_422_at_once(tmp_path: Path) -> None:
    async with api(tmp_path) as (_, http, _):
        body = await (await http.post("/api/v1/handoffs", json=ASK)).json()
        for wait in ("nan", "-1", "soon"):
            read = await http.get(f"/api/v1/handoffs/{body['id']}", params={"wait": wait})
            assert read.status == 422 and (await read.json())["field"] == "wait", wait


async def test_handoff_api_refuses_wrong_revoked_and_unscoped_tokens_and_hides_other_tokens_handoffs(
    tmp_path: Path,
) -> None:
    async with api(tmp_path) as (env, http, made):
        store, now = env.bot.deps.store, env.bot.deps.clock()
        body = await (await http.post("/api/v1/handoffs", json=ASK)).json()
        reader = mint("reader", ["handoffs:read"], "ops", now)
        other = mint("other", ["handoffs:read", "handoffs:write"], "ops", now)
        await store.create_token(reader.stored)
        await store.create_token(other.stored)

        def bearer(token: str) -> dict[str, str]:
            return {"Authorization": f"Bearer {token}"}

        wrong = await http.get(f"/api/v1/handoffs/{body['id']}", headers=bearer("tdm_not-a-token"))
        unscoped = await http.post("/api/v1/handoffs", json=ASK, headers=bearer(reader.token))
        elsewhere = await http.get(f"/api/v1/handoffs/{body['id']}", headers=bearer(other.token))
        await store.revoke_token("ci", "ops", now)
        revoked = await http.get(f"/api/v1/handoffs/{body['id']}")

        assert (wrong.status, unscoped.status, elsewhere.status, revoked.status) == (401, 403, 404, 401)
        assert "revoked" in (await revoked.json())["detail"]


async def test_handoff_cancelled_over_http_reads_cancelled_and_its_question_closes(tmp_path: Path) -> None:
    async with api(tmp_path) as (env, http, _):
        body = await (await http.post("/api/v1/handoffs", json=ASK)).json()
        question = await asked_in_thread(env, "Roll back checkout to v41?")

        cancelled = await http.post(f"/api/v1/handoffs/{body['id']}/cancel")

        assert cancelled.status == 200, await cancelled.text()
        assert (await cancelled.json())["status"] == "cancelled"
        await env.wait(lambda: "tandem.answer" not in str(env.ws.state.message(OPS, question.ts).blocks))


async def test_handoff_timed_out_with_use_default_reads_timed_out_with_the_default(tmp_path: Path) -> None:
    async with api(tmp_path, config=policy_file(tmp_path, "")) as (env, http, _):
        ask = {**ASK, "timeout": 1, "on_timeout": "use_default", "default": "keep v42"}
        body = await (await http.post("/api/v1/handoffs", json=ask)).json()
        await asked_in_thread(env, "Roll back checkout to v41?")

        env.bot.deps.runtime.clock = lambda: 10.0**10  # past the deadline
        await env.bot.deps.runtime.tick()

        got = await (await http.get(f"/api/v1/handoffs/{body['id']}")).json()
        assert (got["status"], got["answer"]) == ("timed_out", "keep v42")


async def test_openapi_document_describes_the_handoff_routes(tmp_path: Path) -> None:
    async with running(tmp_path) as env, aiohttp.ClientSession(base_url=env.bot.url) as http:
        doc = await (await http.get("/api/v1/openapi.json")).json()
        assert {"/api/v1/handoffs", "/api/v1/handoffs/{id}", "/api/v1/handoffs/{id}/cancel"} <= set(doc["paths"])
        assert "prompt" in doc["components"]["schemas"]["HandoffRequest"]["properties"]
