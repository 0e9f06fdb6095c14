"""A tool that blocks the event loop it is called on until the test releases it.

An async tool that makes a blocking call holds its loop: nothing else runs there meanwhile.
The served bot runs tools on the runtime's own loop, so its acks must not wait for this.
"""

from __future__ import annotations

import threading

from agent.tools import Risk, tool

ENTERED = threading.Event()
RELEASE = threading.Event()
LEFT = threading.Event()


def reset() -> None:
    for event in (ENTERED, RELEASE, LEFT):
        event.clear()


@tool(risk=Risk.READ)
async def freeze_loop() -> str:
    """Freeze the loop it runs on (a blocking call in an async tool)."""
    ENTERED.set()
    RELEASE.wait(timeout=60)  # blocks the loop on purpose
    LEFT.set()
    return "released"
