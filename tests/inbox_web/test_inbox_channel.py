"""``channel: "inbox"`` handoffs over real HTTP: asked with a token, posted to no chat, found and answered by their
assignees in the web inbox (signed in as a browser is), read back and called back like any other handoff."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp

import inbox_web
from agent.tokens import Minted
from mail.dev import Mailbox, local_smtp
from tests.inbox_web.helpers import PEOPLE, browser, pending_review
from tests.scenario.asking import ASK, api, call, mcp_over_http
from tests.scenario.harness import Env, policy_file
from tests.scenario.mailing import link_path, mail_settings

IN_INBOX = {**ASK, "channel": "inbox"}


@asynccontextmanager
async def served(tmp_path: Path, **extra: Any) -> AsyncIterator[tuple[Env, aiohttp.ClientSession, Minted]]:
    """``tandem serve`` with the inbox's person switcher, and a session presenting an API token."""
    with inbox_web.switching(lambda: PEOPLE):
        async with api(tmp_path, **extra) as running:
            yield running


def outbox_of(env: Env, run_id: str) -> list[tuple[str, str, str]]:
    """Every outbox row the run wrote: (channel, kind, status)."""
    with sqlite3.connect(env.db) as db:
        rows = db.execute("SELECT channel, kind, status FROM outbox WHERE run_id = ? ORDER BY id", [run_id])
        return [(str(c), str(k), str(s)) for c, k, s in rows.fetchall()]


async def asked(env: Env, http: aiohttp.ClientSession, **more: Any) -> tuple[str, str]:
    """A new inbox handoff's id and its review's."""
    async with http.post("/api/v1/handoffs", json={**IN_INBOX, **more}) as created:
        assert created.status == 201, await created.text()
        run_id = str((await created.json())["id"])
    return run_id, await pending_review(env, run_id)


def posted_by_the_bot(env: Env) -> list[str]:
    return [m.text for messages in env.ws.state.messages.values() for m in messages if m.bot_id]


async def test_inbox_handoff_is_answered_in_the_inbox_long_poll_and_webhook_see_it_and_no_chat_does(
    tmp_path: Path,
) -> None:
    from tests.scenario.webhook_receiver import receiving

    async with served(tmp_path) as (env, http, made), receiving(made.webhook_secret) as receiver:
        async with http.post("/api/v1/handoffs", json={**IN_INBOX, "callback_url": receiver.url}) as created:
            assert created.status == 201, await created.text()
            handoff = await created.json()
        assert handoff["status"] == "pending"
        review = await pending_review(env, handoff["id"])
        waiting = asyncio.create_task(http.get(f"/api/v1/handoffs/{handoff['id']}", params={"wait": "20"}))
        async with browser(env) as alice:
            await alice.sign_in("U0ALICE")
            assert await alice.listed() == [review]
            status, html = await alice.page(f"/inbox/items/{review}")
            assert status == 200
            assert 'data-choice="answer" data-value="roll back"' in html

            assert await alice.answer(review, choice="answer", value="roll back") == (
                200,
                "Answered. Whoever asked has your answer.",
            )

        async with await waiting as polled:
            read = await polled.json()
        assert (read["status"], read["answer"], read["by"]) == ("resolved", "roll back", "U0ALICE")
        got = (await receiver.posts(1))[0]
        assert got.verified, got.headers
        assert (got.json["id"], got.json["status"], got.json["answer"]) == (handoff["id"], "resolved", "roll back")
        await env.idle()
        assert env.bot.webhooks is not None
        await env.bot.webhooks.idle()
        assert outbox_of(env, handoff["id"]) == [("webhook", "webhook", "sent")]
        assert posted_by_the_bot(env) == []


async def test_inbox_handoff_is_not_shown_to_an_outsider_and_an_outsider_cannot_answer_it(tmp_path: Path) -> None:
    async with served(tmp_path) as (env, http, _):
        run_id, review = await asked(env, http)
        async with browser(env) as bob:
            await bob.sign_in("U0BOB")
            assert await bob.listed() == []
            assert (await bob.page(f"/inbox/items/{review}"))[0] == 404
            assert (await bob.answer(review, choice="answer", value="roll back"))[0] == 404
        async with http.get(f"/api/v1/handoffs/{run_id}") as read:
            assert (await read.json())["status"] == "pending"


async def test_inbox_handoff_without_assignees_is_refused_naming_assignees_and_nothing_is_asked(
    tmp_path: Path,
) -> None:
    async with served(tmp_path) as (env, http, _):
        unassigned = {k: v for k, v in IN_INBOX.items() if k != "assignees"}
        for body in (unassigned, {**IN_INBOX, "assignees": []}):
            async with http.post("/api/v1/handoffs", json=body) as refused:
                assert refused.status == 422
                problem = await refused.json()
            assert problem["field"] == "assignees", problem
        assert await env.bot.deps.store.list_runs() == []


async def test_inbox_handoff_timed_out_with_use_default_reads_its_default_and_leaves_the_inbox(
    tmp_path: Path,
) -> None:
    async with served(tmp_path, config=policy_file(tmp_path, "")) as (env, http, _):
        run_id, review = await asked(env, http, timeout=1, on_timeout="use_default", default="keep v42")
        async with browser(env) as alice:
            await alice.sign_in("U0ALICE")
            assert await alice.listed() == [review]

            env.bot.deps.runtime.clock = lambda: 10.0**10  # past the deadline
            await env.bot.deps.runtime.tick()

            async with http.get(f"/api/v1/handoffs/{run_id}") as read:
                got = await read.json()
            assert (got["status"], got["answer"]) == ("timed_out", "keep v42")
            assert await alice.listed() == []
        await env.idle()
        assert outbox_of(env, run_id) == []
        assert posted_by_the_bot(env) == []


async def test_inbox_handoff_cancelled_over_http_leaves_the_inbox_and_cannot_be_answered(tmp_path: Path) -> None:
    async with served(tmp_path) as (env, http, _):
        run_id, review = await asked(env, http)

        async with http.post(f"/api/v1/handoffs/{run_id}/cancel") as cancelled:
            assert cancelled.status == 200, await cancelled.text()
            assert (await cancelled.json())["status"] == "cancelled"

        async with browser(env) as alice:
            await alice.sign_in("U0ALICE")
            assert await alice.listed() == []
            status, message = await alice.answer(review, choice="answer", value="roll back")
            assert status == 409, message


async def test_inbox_approval_asked_over_mcp_is_approved_in_the_inbox_and_the_tool_returns_approved(
    tmp_path: Path,
) -> None:
    async with served(tmp_path) as (env, _, made), mcp_over_http(env.bot.url, made.token) as client:
        asked = {"action": "drain node-7", "channel": "inbox", "approvers": ["U0ALICE"], "risk": "high"}
        waiting = asyncio.create_task(call(client, "request_approval", asked))
        async with browser(env) as alice:
            await alice.sign_in("U0ALICE")
            review = await _first_listed(alice)
            status, html = await alice.page(f"/inbox/items/{review}")
            assert "Approve: drain node-7?" in html
            assert (await alice.answer(review, choice="answer", value="yes"))[0] == 200

        got = await asyncio.wait_for(waiting, 20)
        assert (got["status"], got["approved"], got["by"]) == ("resolved", True, "U0ALICE")
        assert posted_by_the_bot(env) == []


async def _first_listed(person: Any, within: float = 10.0) -> str:
    """The first item ``person``'s inbox lists, once it lists one."""
    async with asyncio.timeout(within):
        while True:
            listed = await person.listed()
            if listed:
                return str(listed[0])
            await asyncio.sleep(0.05)


async def test_inbox_handoff_to_a_policy_group_is_listed_for_its_members_alone(tmp_path: Path) -> None:
    policy = policy_file(tmp_path, '[groups]\nS0ONCALL = ["U0BOB"]\n')
    async with served(tmp_path, config=policy) as (env, http, _):
        run_id, review = await asked(env, http, assignees=["S0ONCALL"])
        async with browser(env) as alice, browser(env) as bob:
            await alice.sign_in("U0ALICE")
            await bob.sign_in("U0BOB")
            assert await alice.listed() == []
            assert await bob.listed() == [review]
            assert (await alice.answer(review, choice="answer", value="roll back"))[0] == 404
            assert (await bob.answer(review, choice="answer", value="keep v42"))[0] == 200
        async with http.get(f"/api/v1/handoffs/{run_id}") as read:
            got = await read.json()
        assert (got["status"], got["answer"], got["by"]) == ("resolved", "keep v42", "U0BOB")


async def test_inbox_handoff_reminder_is_mailed_to_its_assignee_with_a_link_to_the_inbox_item(tmp_path: Path) -> None:
    async with local_smtp(Mailbox()) as box, served(tmp_path, **mail_settings(box, tmp_path)) as (env, http, _):
        run_id, review = await asked(env, http, assignees=["U0BOB"], timeout=100, on_timeout="reassign")
        runtime = env.bot.deps.runtime
        state, _ = await env.bot.deps.store.load(run_id)
        assert state.pending is not None and state.pending.remind_at is not None
        remind_at = state.pending.remind_at

        runtime.clock = lambda: remind_at + 1
        await runtime.tick()
        [reminder] = await box.mails(1)

        assert reminder["To"] == "bob@example.com"
        assert reminder["Subject"].startswith("Reminder: Roll back checkout to v41?")
        async with aiohttp.ClientSession(base_url=env.bot.url) as visitor:
            async with visitor.get(link_path(reminder), allow_redirects=False) as opened:
                assert opened.headers["Location"] == f"/inbox/items/{review}"
        assert posted_by_the_bot(env) == []
