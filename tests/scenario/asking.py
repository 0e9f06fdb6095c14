"""Helpers for handoffs asked over ``/api/v1`` and ``/mcp`` on the real ``tandem serve`` app: a token, an HTTP
session or an MCP client that presents it, and the question as it shows in the run's thread."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from agent.tokens import Minted, mint
from tests.scenario.harness import OPS, Env, asked_in_thread, running

__all__ = ["ASK", "api", "asked_in_thread", "call", "mcp_over_http"]

ASK = {
    "prompt": "Roll back checkout to v41?",
    "input_type": "choice",
    "options": ["roll back", "keep v42"],
    "channel": OPS,
    "assignees": ["U0ALICE"],
}


@asynccontextmanager
async def api(tmp_path: Path, **extra: Any) -> AsyncIterator[tuple[Env, aiohttp.ClientSession, Minted]]:
    async with running(tmp_path, **extra) as env:
        made = mint("ci", ["handoffs:write", "handoffs:read"], "ops", env.bot.deps.clock())
        assert await env.bot.deps.store.create_token(made.stored)
        headers = {"Authorization": f"Bearer {made.token}"}
        async with aiohttp.ClientSession(base_url=env.bot.url, headers=headers) as http:
            yield env, http, made


@asynccontextmanager
async def mcp_over_http(base_url: str, token: str, **client: Any) -> AsyncIterator[Client]:
    """An SDK client of ``base_url``'s ``/mcp`` (streamable HTTP), presenting ``token`` (if any) on every request."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=60)) as http,
        Client(streamable_http_client(f"{base_url}/mcp", http_client=http), **client) as connected,
    ):
        yield connected


async def call(client: Client, tool: str, arguments: dict[str, Any], **kw: Any) -> dict[str, Any]:
    """The tool's structured result (the call must not be a tool error)."""
    result = await client.call_tool(tool, arguments, **kw)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return dict(result.structured_content)
