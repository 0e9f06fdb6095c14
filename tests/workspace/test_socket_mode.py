"""The workspace's Socket Mode: connections opened with the app-level token, each envelope to one of them."""

from __future__ import annotations

import asyncio
import json
import random

import aiohttp
import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from workspace import Workspace
from workspace.errors import ScenarioError
from workspace.socket_mode import APP_TOKEN


async def test_connections_open_with_the_bot_token_is_refused(ws: Workspace) -> None:
    with pytest.raises(SlackApiError, match="invalid_auth"):
        await AsyncWebClient(token=ws.bot_token, base_url=ws.api_url).apps_connections_open(app_token=ws.bot_token)


async def test_envelopes_go_to_one_connection_each_and_its_ack_is_the_answer(ws: Workspace) -> None:
    assert ws.socket is not None
    ws.socket.rng = random.Random(3)
    url = (await AsyncWebClient(base_url=ws.api_url).apps_connections_open(app_token=APP_TOKEN))["url"]
    got: dict[int, list[str]] = {0: [], 1: []}
    async with aiohttp.ClientSession() as session:

        async def app(n: int) -> None:
            async with session.ws_connect(url) as conn:
                hello = await conn.receive_json()
                assert hello["type"] == "hello"
                async for message in conn:
                    envelope = json.loads(message.data)
                    got[n].append(envelope["type"])
                    await conn.send_json({"envelope_id": envelope["envelope_id"], "payload": {"text": f"from {n}"}})

        apps = [asyncio.create_task(app(n)) for n in (0, 1)]
        await ws.wait_until(lambda _s: ws.socket is not None and ws.socket.connected == 2, within=5)
        sent = [await ws.slash_command("alice", "C0OPS", "help") for _ in range(12)]
        for task in apps:
            task.cancel()
        await asyncio.gather(*apps, return_exceptions=True)
    assert [d.status for d in sent] == [200] * 12
    assert len(got[0]) + len(got[1]) == 12 and got[0] and got[1], "each to one connection, both used"
    assert set(got[0] + got[1]) == {"slash_commands"}
    assert {d.reply()["text"] for d in sent} == {"from 0", "from 1"}


async def test_forged_request_over_socket_mode_is_a_scenario_error(ws: Workspace) -> None:
    assert ws.socket is not None
    url = (await AsyncWebClient(base_url=ws.api_url).apps_connections_open(app_token=APP_TOKEN))["url"]
    async with aiohttp.ClientSession() as session, session.ws_connect(url) as conn:
        await conn.receive_json()
        with pytest.raises(ScenarioError, match="no signature"):
            await ws.slash_command("alice", "C0OPS", "help", forge="bad_signature")
