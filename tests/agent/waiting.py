"""Waiting for a positive signal in agent tests."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest


async def eventually(check: Callable[[], object], what: str, limit: float = 30.0) -> None:
    """Wait for a positive signal, polling, for at most ``limit`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not check():
        if loop.time() > deadline:
            pytest.fail(f"gave up waiting for {what} after {limit} s")
        await asyncio.sleep(0.02)
