"""The tool-call benchmark: what each way of running a tool costs, and how soon a timeout stops it.

    python -m bench.tool_calls                 # the figures (about 30 s on 2 busy cores)
    python -m bench.tool_calls --calls 20 --isolated 5 --stops 3 --mcp 20   # a quick look
    python -m bench.tool_calls --part server   # only Tandem's own MCP server (a few seconds)

1. Call overhead, p50/p99 of one trivial call through ``ToolSpec.call``: a sync tool on its own
   daemon thread (how Tandem runs sync tools), ``asyncio.to_thread`` (how it ran them before, for
   comparison), and ``@tool(isolate="process")`` (a fresh interpreter per call).
2. MCP call overhead: a trivial call to a tool of an MCP server over stdio and over streamable HTTP
   (``bench.mcp_echo``, written with the SDK), through ``ToolSpec.call`` as the worker makes it, against
   a local async ``@tool`` call; with the ratio and the added time per call (:mod:`bench.mcp_calls`).
3. Stop latency: a tool that sleeps far past a 0.2 s step timeout, run through
   ``agent.runtime.stopping.within`` as the worker runs it; the time from the deadline until
   ``within`` reports the outcome (``cancelled`` for an async tool and for an isolated one).
4. Tandem as an MCP server: ``ask_human`` over stdio and HTTP and ``request_approval`` over HTTP, answered at
   once by a stand-in person, against the REST API's create and long-poll; then each asked again with its
   idempotency key once answered (:mod:`bench.mcp_asks`).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

from agent.runtime.stopping import OutOfTime, within
from agent.tools import load_tools
from bench.mcp_asks import server_rows
from bench.mcp_calls import mcp_rows
from bench.results import BenchFailure, percentile

TOOLS = load_tools(["bench.timeout_tools"])
STEP_TIMEOUT = 0.2


async def timed(calls: int, once: Callable[[int], Awaitable[Any]]) -> list[float]:
    seconds: list[float] = []
    for i in range(calls):
        t0 = time.perf_counter()
        if await once(i) != i:
            raise BenchFailure(f"call {i} returned the wrong value")
        seconds.append(time.perf_counter() - t0)
    return seconds


async def stop_latency(name: str, stops: int) -> tuple[list[float], set[str]]:
    spec = TOOLS.get(name)
    late: list[float] = []
    outcomes: set[str] = set()
    for _ in range(stops):
        call = asyncio.ensure_future(spec.call({"seconds": 3600}))
        t0 = time.perf_counter()
        try:
            await within(call, timeout=STEP_TIMEOUT, stoppable=spec.runs_in != "thread")
        except OutOfTime as out:
            outcomes.add(out.outcome)
        else:
            raise BenchFailure(f"{name} finished instead of timing out")
        late.append(time.perf_counter() - t0 - STEP_TIMEOUT)
    return late, outcomes


def line(label: str, seconds: list[float]) -> str:
    ms = [s * 1000 for s in seconds]
    return f"  {label:<38} p50 {statistics.median(ms):8.2f} ms   p99 {percentile(ms, 99):8.2f} ms   (n={len(ms)})"


async def run(
    calls: int, isolated: int, stops: int, mcp: int = 200, asks: int = 5, repeats: int = 20, part: str = "all"
) -> list[str]:
    out = await client_rows(calls, isolated, stops, mcp) if part in ("all", "client") else []
    if part in ("all", "server"):
        out += await server_rows(asks, repeats, timed, line)
    return out


async def client_rows(calls: int, isolated: int, stops: int, mcp: int) -> list[str]:
    sync = TOOLS.get("echo_sync")
    out = ["Call overhead (one trivial call):"]
    out.append(line("sync tool, own daemon thread", await timed(calls, lambda i: sync.call({"value": i}))))
    out.append(
        line("sync tool, asyncio.to_thread (before)", await timed(calls, lambda i: asyncio.to_thread(sync.fn, i)))
    )
    proc = TOOLS.get("echo_isolated")
    out.append(line('isolate="process"', await timed(isolated, lambda i: proc.call({"value": i}))))
    out += await mcp_rows(mcp, TOOLS.get("echo_async"), timed, line)
    out.append(f"Stop latency (deadline until the outcome is known; step timeout {STEP_TIMEOUT} s):")
    for name in ("hang_async", "hang_isolated"):
        late, outcomes = await stop_latency(name, stops)
        if outcomes != {"cancelled"}:
            raise BenchFailure(f"{name} ended {outcomes}, not cancelled")
        out.append(line(f"{TOOLS.get(name).runs_in} tool -> cancelled", late))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.tool_calls", description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=2000, help="trivial in-process calls per row")
    parser.add_argument("--isolated", type=int, default=30, help="trivial isolated calls")
    parser.add_argument("--mcp", type=int, default=500, help="trivial MCP calls per transport")
    parser.add_argument("--stops", type=int, default=10, help="timed-out calls per stoppable kind")
    parser.add_argument("--asks", type=int, default=5, help="round trips through Tandem's MCP server per door")
    parser.add_argument("--repeats", type=int, default=20, help="calls again with an answered key per door")
    parser.add_argument(
        "--part", choices=["all", "client", "server"], default="all", help="the tools Tandem calls, or its own server"
    )
    args = parser.parse_args(argv)
    if min(args.calls, args.isolated, args.stops, args.mcp, args.asks, args.repeats) < 1:
        parser.error("every count must be at least 1")
    for text in asyncio.run(run(args.calls, args.isolated, args.stops, args.mcp, args.asks, args.repeats, args.part)):
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
