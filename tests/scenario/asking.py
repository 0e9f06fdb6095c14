"""Helpers for handoffs asked over ``/api/v1`` on the real ``tandem serve`` app: a token, an HTTP session
that presents it, and the question as it shows in the run's thread."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp

from agent.tokens import Minted, mint
from tests.scenario.harness import OPS, Env, asked_in_thread, running

__all__ = ["ASK", "api", "asked_in_thread"]

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
