"""``/mcp`` on the real ``tandem serve`` app, what only the HTTP door has (the stories both doors share are in
test_mcp_server.py): the caller is its token, whose idempotency keys are the same over ``/api/v1``; a token that
may not call is refused, saying why, and nothing is asked."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp
import pytest
from mcp.shared.exceptions import MCPError

from agent.tokens import mint
from blocks import ids
from tests.scenario.asking import api, asked_in_thread, call, mcp_over_http
from tests.scenario.harness import OPS

QUESTION = {"question": "Roll back checkout to v41?", "channel": OPS, "assignees": ["U0ALICE"]}
CHOICE = {**QUESTION, "input_type": "choice", "options": ["roll back", "keep v42"]}


async def test_mcp_http_key_asked_over_rest_is_the_same_handoff_over_mcp(tmp_path: Path) -> None:
    async with api(tmp_path) as (env, http, made), mcp_over_http(env.bot.url, made.token) as client:
        rest = {"prompt": "Which region first?", "channel": OPS, "assignees": ["U0ALICE"], "input_type": "choice"}
        created = await http.post("/api/v1/handoffs", json={**rest, "options": ["eu", "us"], "idempotency_key": "r-7"})
        assert created.status == 201
        asked = {"question": "Which region first?", "channel": OPS, "assignees": ["U0ALICE"]}
        asked |= {"input_type": "choice", "options": ["eu", "us"], "idempotency_key": "r-7"}
        waiting = asyncio.create_task(call(client, "ask_human", asked))
        question = await asked_in_thread(env, "Which region first?")
        await env.click("alice", question, f"{ids.ANSWER}.1")

        got = await asyncio.wait_for(waiting, 20)
        assert (got["id"], got["answer"]) == ((await created.json())["id"], "us")
        assert len(env.cards()) == 1, "asked once: the key is the token's, over either door"


def innermost(error: BaseException) -> BaseException:
    """The error an exception group (the SDK client's task groups) wraps."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


@pytest.mark.parametrize(
    ("presented", "status", "says"),
    [
        ("none", 401, "No token: send the header 'Authorization: Bearer TOKEN' (tandem tokens create NAME makes one)."),
        ("wrong", 401, "This token is not known here."),
        ("expired", 401, "This token has expired; make a new one with tandem tokens create."),
        ("revoked", 401, "This token was revoked; make a new one with tandem tokens create."),
        ("read-only", 403, "This token lacks the scope handoffs:write."),
    ],
)
async def test_mcp_http_token_that_may_not_call_is_refused_saying_why_and_nothing_is_asked(
    tmp_path: Path, presented: str, status: int, says: str
) -> None:
    async with api(tmp_path) as (env, _, made):
        store, now = env.bot.deps.store, env.bot.deps.clock()
        token = {"none": "", "wrong": made.token[:-4] + "abcd"}.get(presented, made.token)
        if presented == "expired":
            old = mint("old", ["handoffs:write"], "ops", now - 120, expires_at=now - 60)
            assert await store.create_token(old.stored)
            token = old.token
        if presented == "read-only":
            reader = mint("reader", ["handoffs:read"], "ops", now)
            assert await store.create_token(reader.stored)
            token = reader.token
        if presented == "revoked":
            assert await store.revoke_token("ci", "ops", now)

        # What an MCP client shows: the reason, as the JSON-RPC error's message.
        with pytest.raises(BaseException) as refused:  # noqa: PT011 (the SDK client wraps it in exception groups)
            async with mcp_over_http(env.bot.url, token) as client:
                await client.call_tool("ask_human", CHOICE)
        error = innermost(refused.value)
        assert isinstance(error, MCPError) and error.error.message == says and error.error.data["status"] == status

        # What plain HTTP shows: the status, the challenge, and the same words.
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        rpc = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        async with aiohttp.ClientSession() as http, http.post(f"{env.bot.url}/mcp", json=rpc, headers=headers) as sent:
            assert sent.status == status
            assert (sent.headers.get("WWW-Authenticate") == 'Bearer realm="tandem"') == (status == 401)
            body = await sent.json()
        assert body["error"]["message"] == says
        assert env.cards() == [], "nothing was asked"


async def test_mcp_http_client_of_the_earlier_handshake_protocol_is_served_too(tmp_path: Path) -> None:
    async with api(tmp_path) as (env, _, made), mcp_over_http(env.bot.url, made.token, mode="legacy") as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        waiting = asyncio.create_task(call(client, "ask_human", CHOICE))
        question = await asked_in_thread(env, "Roll back checkout to v41?")
        await env.click("alice", question, f"{ids.ANSWER}.1")

        got = await asyncio.wait_for(waiting, 20)
        assert client.protocol_version < "2026"
        assert listed == {"ask_human", "request_approval"}
        assert (got["status"], got["answer"]) == ("resolved", "keep v42")
