"""The tool-call benchmark, tiny: each way of running a tool answers, and each stoppable one is stopped.

Behaviour only; the figures are ``python -m bench.tool_calls``'s business.
"""

from __future__ import annotations

from bench.tool_calls import run


async def test_tool_calls_bench_tiny_run_measures_every_row() -> None:
    lines = await run(calls=3, isolated=1, stops=1, mcp=3)
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
    ]
    assert any(line.strip().startswith("stdio: ") and "x a local call" in line for line in lines)
