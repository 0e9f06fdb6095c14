"""The tool-call benchmark's server half: other software asking Tandem's people through Tandem's own MCP server
(``ask_human`` over stdio, from ``tandem mcp``, and over streamable HTTP, from ``/mcp``; ``request_approval``
over HTTP), against the REST API's create and long-poll as the baseline.

A stand-in for the person answers every question as soon as it is stored (it polls the database every few
milliseconds), in this process, as a click on ``tandem serve`` would be. A wait in this process (REST, ``/mcp``)
is woken by the answer at once; ``tandem mcp`` is another process, whose wait sees the answer at its next read of
the run (every :data:`agent.asking.POLL` seconds), as it does beside a real bot. Asked again with the same
idempotency key, once answered, a call is the door's own cost.
"""

from __future__ import annotations

import asyncio
import logging
import os
import statistics
import sys
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import aiohttp
import httpx2
from aiohttp import web
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from agent.asking import Asking
from agent.brain import LLMBrain
from agent.offline import OfflineModel
from agent.runtime import Runtime
from agent.tokens import mint
from agent.tools import ToolRegistry
from agent.usecases import UseCases
from api import handoffs, mcp_http
from bench.results import BenchFailure
from bot.origin import PLATFORM as SLACK
from storage.facade import AsyncStore

PERSON = "U0BENCH"
ASK = {"channel": "C0BENCH", "assignees": [PERSON]}
assert SLACK.run_origin is not None  # (importing it lets handoffs be asked in Slack channels)
ROOT = Path(__file__).resolve().parents[1]
Timed = Callable[[int, Callable[[int], Awaitable[Any]]], Awaitable[list[float]]]
Line = Callable[[str, list[float]], str]


@dataclass
class Tandem:
    """Tandem's doors on one SQLite file: ``/api/v1`` and ``/mcp`` at ``url``, a token for them, the file."""

    url: str
    token: str
    db: Path
    usecases: UseCases


@asynccontextmanager
async def serving(tmp: Path) -> AsyncIterator[Tandem]:
    """The REST API and ``/mcp`` on a free port, with a stand-in person answering every question at once."""
    async with AsyncStore(tmp / "tandem.db") as store:
        runtime = Runtime(store, LLMBrain(OfflineModel()), ToolRegistry())
        usecases = UseCases(runtime, store)
        made = mint("bench", ["handoffs:write", "handoffs:read"], "bench", runtime.clock())
        if not await store.create_token(made.stored):
            raise BenchFailure("the bench's token could not be stored")
        asking = Asking(store, runtime, usecases)
        application = web.Application()
        handoffs.mount(application, asking)
        mcp_http.mount(application, asking)
        runner = web.AppRunner(application, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        answering = asyncio.create_task(answer_all(usecases))
        try:
            yield Tandem(f"http://127.0.0.1:{runner.addresses[0][1]}", made.token, tmp / "tandem.db", usecases)
        finally:
            answering.cancel()
            with suppress(asyncio.CancelledError):
                await answering
            await runner.cleanup()


async def answer_all(usecases: UseCases) -> None:
    """Answer yes to every question as soon as it is stored (whichever process stored it)."""
    answered: set[str] = set()
    while True:
        for run in await usecases.store.list_runs(status="awaiting_review"):
            if run.pending_review is not None and run.pending_review not in answered:
                answered.add(run.pending_review)
                await usecases.answer(run.pending_review, "yes", PERSON)
        await asyncio.sleep(0.002)


@asynccontextmanager
async def over_stdio(tandem: Tandem) -> AsyncIterator[Client]:
    """``tandem mcp --as bench`` as a process on the same database, with an SDK client connected to it."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "TANDEM_"))}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "cli.main", "mcp", "--as", "bench"],
        env={**clean, "PYTHONPATH": str(ROOT), "TANDEM_DB": str(tandem.db), "TANDEM_LOG_LEVEL": "WARNING"},
        cwd=str(tandem.db.parent),
    )
    async with Client(params, read_timeout_seconds=60) as client:
        yield client


@asynccontextmanager
async def over_http(tandem: Tandem) -> AsyncIterator[Client]:
    """An SDK client of ``/mcp`` (streamable HTTP), presenting the bench's token."""
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {tandem.token}"}) as http,
        Client(streamable_http_client(f"{tandem.url}/mcp", http_client=http)) as client,
    ):
        yield client


async def mcp_once(client: Client, tool: str, i: int, key: str | None) -> int:
    arguments = {**ASK, "question": f"Ship build {i}?", "input_type": "confirm", "idempotency_key": key}
    if tool == "request_approval":
        arguments = {**ASK, "action": f"ship build {i}", "approvers": [PERSON], "idempotency_key": key}
    result = await client.call_tool(tool, arguments)
    got = result.structured_content or {}
    if result.is_error or got.get("status") != "resolved":
        raise BenchFailure(f"{tool} came back {result.content}")
    return i


async def rest_once(http: aiohttp.ClientSession, i: int, key: str | None) -> int:
    body = {**ASK, "prompt": f"Ship build {i}?", "input_type": "confirm", "idempotency_key": key}
    async with http.post("/api/v1/handoffs", json=body) as created:
        view = await created.json()
    while view.get("status") == "pending":
        async with http.get(f"/api/v1/handoffs/{view['id']}", params={"wait": "30"}) as read:
            view = await read.json()
    if view.get("status") != "resolved":
        raise BenchFailure(f"the REST handoff came back {view}")
    return i


async def server_rows(asks: int, repeats: int, timed: Timed, line: Line) -> list[str]:
    logging.basicConfig(level=logging.WARNING)  # (else the MCP SDK sets up its own, at INFO)
    round_trips: list[tuple[str, list[float]]] = []
    repeated: list[tuple[str, list[float]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        async with AsyncExitStack() as stack:
            tandem = await stack.enter_async_context(serving(Path(tmp)))
            headers = {"Authorization": f"Bearer {tandem.token}"}
            http = await stack.enter_async_context(aiohttp.ClientSession(tandem.url, headers=headers))
            stdio = await stack.enter_async_context(over_stdio(tandem))
            web_mcp = await stack.enter_async_context(over_http(tandem))
            doors: list[tuple[str, Callable[..., Awaitable[int]]]] = [
                ("REST create + long-poll (baseline)", partial(rest_once, http)),
                ("MCP ask_human over stdio", partial(mcp_once, stdio, "ask_human")),
                ("MCP ask_human over http", partial(mcp_once, web_mcp, "ask_human")),
                ("MCP request_approval over http", partial(mcp_once, web_mcp, "request_approval")),
            ]
            for n, (label, once) in enumerate(doors):
                key = f"asked-before-{n}"
                await once(-1, key)  # the first call pays for imports and connections; later ones ask again with it
                round_trips.append((label, await timed(asks, partial(once, key=None))))
                repeated.append((label, await timed(repeats, partial(once, key=key))))
    out = [f"Tandem as an MCP server (a round trip, answered at once by a stand-in person; n={asks}):"]
    out += table(round_trips, line)
    out.append(f"Asked again with its idempotency key, answered already (the door's own cost; n={repeats}):")
    return out + table(repeated, line)


def table(rows: list[tuple[str, list[float]]], line: Line) -> list[str]:
    """A line per door, then each door's median against the first's (the REST baseline)."""
    base = statistics.median(rows[0][1])
    ratios = [f"    {label}: {statistics.median(s) / base:.2f}x the REST baseline (median)" for label, s in rows[1:]]
    return [line(label, seconds) for label, seconds in rows] + ratios
