"""``tandem dev`` serves ``/mcp`` too (it runs the same bot app as ``tandem serve``): a token from its database
lets an MCP client list the tools, and a request without one is refused."""

from __future__ import annotations

from pathlib import Path

import aiohttp

from agent.tokens import mint
from cli.dev import developing
from tests.scenario.asking import mcp_over_http


async def test_dev_serves_mcp_to_a_client_with_a_token_and_refuses_one_without(tmp_path: Path) -> None:
    async with developing(port=0, db=tmp_path / "t.db") as dev:
        made = mint("coder", ["handoffs:write"], "dev", dev.bot.deps.clock())
        assert await dev.bot.deps.store.create_token(made.stored)
        async with mcp_over_http(dev.bot.url, made.token) as client:
            listed = {t.name for t in (await client.list_tools()).tools}
        rpc = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        async with aiohttp.ClientSession() as http, http.post(f"{dev.bot.url}/mcp", json=rpc) as refused:
            status = refused.status

    assert listed == {"ask_human", "request_approval"}
    assert status == 401
