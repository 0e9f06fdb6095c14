"""The tool-call benchmark, tiny: each way of running a tool answers, each stoppable one is stopped, and each door
of Tandem's own MCP server gets its answer.

Behaviour only; the figures are ``python -m bench.tool_calls``'s business.
"""

from __future__ import annotations

from bench.tool_calls import run


async def test_tool_calls_bench_tiny_run_measures_every_row() -> None:
    lines = await run(calls=3, isolated=1, stops=1, mcp=3, asks=1, repeats=1)
    labels = [line.split(" p50 ")[0].strip() for line in lines if " p50 " in line]
    assert labels == [
        "sync tool, own daemon thread",
        "sync tool, asyncio.to_thread (before)",
        'isolate="process"',
        "local async @tool",
        "MCP tool over stdio",
        "MCP tool over http",
        "loop tool -> cancelled",
        "process tool -> cancelled",
        *[door for _ in ("round trip", "asked again") for door in DOORS],
    ]
    assert any(line.strip().startswith("stdio: ") and "x a local call" in line for line in lines)
    assert sum("x the REST baseline" in line for line in lines) == 2 * (len(DOORS) - 1)


DOORS = [
    "REST create + long-poll (baseline)",
    "MCP ask_human over stdio",
    "MCP ask_human over http",
    "MCP request_approval over http",
]
