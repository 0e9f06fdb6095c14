"""A handoff created over ``/api/v1`` on the real ``tandem serve`` app goes to the runtime's loop once: its token
is checked on the serving loop's own connection (so the check does not queue behind cards and webhooks being
sent), and the create runs there whole. A token revoked a moment ago is still refused at once."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest

from agent.runtime.home import RuntimeLoop
from tests.scenario.asking import ASK, api, asked_in_thread

T = TypeVar("T")


async def test_handoff_create_over_http_hops_to_the_runtime_loop_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hops: dict[asyncio.Task[Any] | None, list[str]] = {}  # by the task that hopped (background work hops too)
    call = RuntimeLoop.call

    async def counted(self: RuntimeLoop, coro: Coroutine[Any, Any, T]) -> T:
        if not self.here():
            hops.setdefault(asyncio.current_task(), []).append(coro.__qualname__)
        return await call(self, coro)

    async with api(tmp_path) as (env, http, _):
        monkeypatch.setattr(RuntimeLoop, "call", counted)
        created = await http.post("/api/v1/handoffs", json=ASK)
        monkeypatch.undo()

        assert created.status == 201, await created.text()
        of_the_request = [names for names in hops.values() if "Asking.ask" in names]
        assert of_the_request == [["Asking.ask"]]
        await asked_in_thread(env, "Roll back checkout to v41?")


async def test_handoff_create_with_a_token_revoked_a_moment_ago_is_refused_401(tmp_path: Path) -> None:
    async with api(tmp_path) as (env, http, made):
        assert (await http.post("/api/v1/handoffs", json={**ASK, "idempotency_key": "a"})).status == 201
        assert await env.bot.deps.store.revoke_token(made.stored.name, "U0ADMIN", env.bot.deps.clock())

        refused = await http.post("/api/v1/handoffs", json={**ASK, "idempotency_key": "b"})

        assert refused.status == 401
        assert "revoked" in (await refused.json())["detail"]
