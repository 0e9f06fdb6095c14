"""``/mcp`` served by the SDK's app inside an aiohttp app: a call that waits long hears progress over HTTP the
whole time, and returns what the person answered, typed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from aiohttp import web

from agent.asking import Asking
from agent.brain import LLMBrain
from agent.offline import OfflineModel
from agent.runtime import Runtime
from agent.tokens import Minted, mint
from agent.tools import ToolRegistry
from agent.usecases import UseCases
from api import mcp_http
from storage.facade import AsyncStore
from tests.scenario.asking import call, mcp_over_http

QUESTION = {
    "question": "Rotate the TLS key now?",
    "channel": "C0OPS",
    "assignees": ["U0ALICE"],
    "input_type": "confirm",
}


@asynccontextmanager
async def serving(tmp_path: Path, progress_every: float) -> AsyncIterator[tuple[str, Minted, UseCases]]:
    """``/mcp`` alone on a free port (its tools asking through a real store and runtime): its URL, a token that
    may call it, and the use cases a person answers through."""
    async with AsyncStore(tmp_path / "tandem.db") as store:
        runtime = Runtime(store, LLMBrain(OfflineModel()), ToolRegistry())
        usecases = UseCases(runtime, store)
        made = mint("ci", ["handoffs:write"], "ops", runtime.clock())
        assert await store.create_token(made.stored)
        application = web.Application()
        mcp_http.mount(application, Asking(store, runtime, usecases), progress_every=progress_every)
        runner = web.AppRunner(application)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        try:
            yield f"http://127.0.0.1:{runner.addresses[0][1]}", made, usecases
        finally:
            await runner.cleanup()


async def test_mcp_http_call_that_waits_hears_progress_until_answered_then_returns_it(tmp_path: Path) -> None:
    async with serving(tmp_path, progress_every=0.2) as (url, made, usecases), mcp_over_http(url, made.token) as mcp:
        heard: list[tuple[float, str | None]] = []
        thrice = asyncio.Event()

        async def progress(done: float, total: float | None, message: str | None) -> None:
            heard.append((done, message))
            if len(heard) >= 3:
                thrice.set()

        waiting = asyncio.create_task(call(mcp, "ask_human", QUESTION, progress_callback=progress))
        await asyncio.wait_for(thrice.wait(), 20)  # the call is alive, and says so, while nobody has answered
        assert not waiting.done()
        assert [d for d, _ in heard] == sorted(d for d, _ in heard) and heard[-1][1] == "Waiting for an answer in C0OPS"

        [run] = await usecases.store.list_runs()
        asked, _ = await usecases.store.load(run.id)
        assert asked.pending is not None
        await usecases.answer(asked.pending.id, "yes", "U0ALICE")

        got = await asyncio.wait_for(waiting, 20)
        assert (got["status"], got["answer"], got["by"]) == ("resolved", True, "U0ALICE")
