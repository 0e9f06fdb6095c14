"""The tool-call benchmark's MCP rows: one trivial call to a tool of an MCP server (stdio, then streamable HTTP
on 127.0.0.1) through the registry, as the worker makes it (params checked against the listed schema, the
call, the result read), against the same call to a local async ``@tool`` function; with the ratios."""

from __future__ import annotations

import asyncio
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from agent.config import PolicyConfig
from agent.config_mcp import McpRule, McpServer
from agent.mcptools.toolset import mcp_toolsets
from agent.tools import ToolRegistry, ToolSpec
from bench.results import BenchFailure

Timed = Callable[[int, Callable[[int], Awaitable[Any]]], Awaitable[list[float]]]
Line = Callable[[str, list[float]], str]


@asynccontextmanager
async def echo_over(transport: str) -> AsyncIterator[ToolSpec]:
    """The benchmark server's ``echo_mcp`` over ``transport`` ("stdio" or "http"), connected."""
    command = [sys.executable, "-m", "bench.mcp_echo"]
    proc = None
    if transport == "http":
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        proc = await asyncio.create_subprocess_exec(*command, "--http", str(port), stderr=subprocess.DEVNULL)
        await _until_listening(port, proc)
        server = McpServer(url=f"http://127.0.0.1:{port}/mcp", trust="trusted")
    else:
        server = McpServer(command=command, trust="trusted")
    tools = ToolRegistry()
    try:
        async with mcp_toolsets(PolicyConfig(mcp=McpRule(servers={"echo": server})), tools, connect_timeout=30):
            if "echo_mcp" not in tools:
                raise BenchFailure(f"the MCP echo server did not connect over {transport}")
            yield tools.get("echo_mcp")
    finally:
        if proc is not None:
            proc.kill()
            await proc.wait()


async def _until_listening(port: int, proc: asyncio.subprocess.Process) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        except OSError:
            if time.monotonic() > deadline or proc.returncode is not None:
                raise BenchFailure("the MCP echo server did not start over HTTP") from None
            await asyncio.sleep(0.05)


async def mcp_rows(calls: int, local: ToolSpec, timed: Timed, line: Line) -> list[str]:
    out = [f"MCP call overhead (one trivial call through the registry, against a local async @tool; n={calls}):"]
    base = await timed(calls, lambda i: local.call({"value": i}))
    out.append(line("local async @tool", base))
    for transport in ("stdio", "http"):
        async with echo_over(transport) as spec:
            await timed(min(calls, 20), lambda i: spec.call({"value": i}))  # warm: schema compiled, session busy
            seconds = await timed(calls, lambda i: spec.call({"value": i}))
        out.append(line(f"MCP tool over {transport}", seconds))
        p50, base50 = statistics.median(seconds), statistics.median(base)
        out.append(
            f"    {transport}: {p50 / base50:,.0f}x a local call (median), +{(p50 - base50) * 1000:.2f} ms a call"
        )
    return out
