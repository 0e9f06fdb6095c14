"""Tools that run in a process of their own (``@tool(isolate="process")``), for the timeout tests."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

from agent import human
from agent.tools import Risk, tool


@tool(risk=Risk.READ, isolate="process")
def child_pid(service: str) -> dict[str, object]:
    """Return the process it ran in."""
    print("noise a tool printed")  # must not be mistaken for the result
    return {"service": service, "pid": os.getpid()}


@tool(risk=Risk.READ, isolate="process")
async def doubled_in_child(number: int) -> int:
    """An async tool in a child process."""
    await asyncio.sleep(0)
    return number * 2


@tool(risk=Risk.READ, isolate="process")
def fails_in_child(service: str) -> str:
    """Always fails."""
    raise RuntimeError(f"{service}: disk full")


@tool(risk=Risk.READ, isolate="process")
def dies_in_child(code: int) -> str:
    """Exits without a result."""
    os._exit(code)


@tool(risk=Risk.READ, isolate="process")
def asks_in_child(service: str) -> str:
    """Asks a person, from the child."""
    region = human.ask_now(f"Where should {service} go?", input_type="choice", options=["eu-west-1", "us-east-1"])
    return f"{service} moved to {region}"


@tool(risk=Risk.READ, isolate="process")
def sleeps_in_child(folder: str) -> str:
    """Start a grandchild, write both pids to ``folder``/pids, then sleep for an hour."""
    grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    pids = Path(folder) / "pids"
    pids.with_suffix(".tmp").write_text(f"{os.getpid()} {grandchild.pid}")
    pids.with_suffix(".tmp").rename(pids)
    time.sleep(3600)
    return "woke up"
