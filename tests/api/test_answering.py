"""While ``/api/v1`` answers a request at once (a create, a cancel, a read without ``?wait=``), the outbox's
sends wait for it; a long-poll, a Slack request and any other path do not count."""

from __future__ import annotations

import aiohttp
from aiohttp import web

from agent.runtime.home import Acks
from api.handoffs import ACKS, PREFIX, answering


async def test_requests_that_answer_at_once_count_as_open_and_long_polls_do_not() -> None:
    acks = Acks(patience=60)
    seen: dict[str, int] = {}

    async def record(request: web.Request) -> web.Response:
        seen[f"{request.method} {request.path_qs}"] = acks.open
        return web.json_response({})

    application = web.Application(middlewares=[answering])
    application[ACKS] = acks
    application.router.add_post(f"{PREFIX}/handoffs", record)
    application.router.add_get(f"{PREFIX}/handoffs/{{id}}", record)
    application.router.add_post(f"{PREFIX}/handoffs/{{id}}/cancel", record)
    application.router.add_post("/slack/events", record)
    runner = web.AppRunner(application)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    try:
        async with aiohttp.ClientSession(f"http://127.0.0.1:{runner.addresses[0][1]}") as http:
            for method, path in [
                ("POST", f"{PREFIX}/handoffs"),
                ("GET", f"{PREFIX}/handoffs/h1"),
                ("GET", f"{PREFIX}/handoffs/h1?wait=20"),
                ("POST", f"{PREFIX}/handoffs/h1/cancel"),
                ("POST", "/slack/events"),
            ]:
                async with http.request(method, path) as answer:
                    assert answer.status == 200
    finally:
        await runner.cleanup()
    assert seen == {
        f"POST {PREFIX}/handoffs": 1,
        f"GET {PREFIX}/handoffs/h1": 1,
        f"GET {PREFIX}/handoffs/h1?wait=20": 0,
        f"POST {PREFIX}/handoffs/h1/cancel": 1,
        "POST /slack/events": 0,
    }
    assert acks.open == 0, "every request that counted closed again"
