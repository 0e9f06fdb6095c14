"""The tool-call benchmark's tools: one trivial call per way a tool can run, and two that never end."""

from __future__ import annotations

import asyncio
import time

from agent.models import Risk
from agent.tools import tool


@tool(risk=Risk.READ)
def echo_sync(value: int) -> int:
    """Return the value (on a thread)."""
    return value


@tool(risk=Risk.READ, isolate="process")
def echo_isolated(value: int) -> int:
    """Return the value (in a child process)."""
    return value


@tool(risk=Risk.READ)
async def hang_async(seconds: float) -> str:
    """Sleep far past any step timeout (cancellable)."""
    await asyncio.sleep(seconds)
    return "woke"


@tool(risk=Risk.READ, isolate="process")
def hang_isolated(seconds: float) -> str:
    """Sleep far past any step timeout (in a child process, killed when it runs out of time)."""
    time.sleep(seconds)
    return "woke"


@tool(risk=Risk.READ)
async def echo_async(value: int) -> int:
    """Return the value (in the event loop, as an MCP tool's call runs)."""
    return value
