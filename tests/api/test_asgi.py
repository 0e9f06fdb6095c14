from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route

from api.asgi import mount_asgi


def _starlette(events: list[str], release: asyncio.Event, ended: asyncio.Event | None = None) -> Starlette:
    async def hello(request: Request) -> JSONResponse:
        return JSONResponse({"path": request.url.path, "root": request.scope["root_path"]})

    async def stream(request: Request) -> StreamingResponse:
        async def chunks() -> AsyncIterator[bytes]:
            try:
                yield b"data: first\n\n"
                await release.wait()
                yield b"data: second\n\n"
            finally:
                if ended is not None:
                    ended.set()

        return StreamingResponse(chunks(), media_type="text/event-stream")

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        events.append("started")
        yield
        events.append("stopped")

    return Starlette(routes=[Route("/hello", hello), Route("/stream", stream)], lifespan=lifespan)


@asynccontextmanager
async def _serving(application: web.Application) -> AsyncIterator[aiohttp.ClientSession]:
    runner = web.AppRunner(application)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    port = runner.addresses[0][1]
    try:
        async with aiohttp.ClientSession(f"http://127.0.0.1:{port}") as http:
            yield http
    finally:
        await runner.cleanup()


async def test_mount_asgi_serves_beside_aiohttp_routes_streams_and_runs_lifespan() -> None:
    events: list[str] = []
    release = asyncio.Event()
    application = web.Application()

    async def own(request: web.Request) -> web.Response:
        return web.json_response({"own": True})

    application.router.add_get("/healthz", own)
    mount_asgi(application, "/inner", _starlette(events, release))
    async with _serving(application) as http:
        assert events == ["started"]
        async with http.get("/healthz") as response:
            assert await response.json() == {"own": True}
        async with http.get("/inner/hello") as response:
            assert await response.json() == {"path": "/inner/hello", "root": "/inner"}
        async with http.get("/inner/stream") as response:
            # The first event arrives while the app still holds the second: nothing is buffered whole.
            assert await response.content.readuntil(b"\n\n") == b"data: first\n\n"
            release.set()
            assert await response.content.readuntil(b"\n\n") == b"data: second\n\n"
        async with http.get("/elsewhere") as response:
            assert response.status == 404
    assert events == ["started", "stopped"]


def test_mount_asgi_with_a_trailing_slash_is_refused() -> None:
    with pytest.raises(ValueError, match="/mcp"):
        mount_asgi(web.Application(), "/mcp/", _starlette([], asyncio.Event()))


async def test_mount_asgi_stream_ends_when_its_client_goes_away() -> None:
    ended = asyncio.Event()
    application = web.Application()
    mount_asgi(application, "/inner", _starlette([], asyncio.Event(), ended))
    async with _serving(application) as http:
        response = await http.get("/inner/stream")
        assert await response.content.readuntil(b"\n\n") == b"data: first\n\n"
        # The loop is free while the stream waits: another request is answered.
        async with http.get("/inner/hello") as other:
            assert other.status == 200
        response.close()
        await asyncio.wait_for(ended.wait(), 10)


def _answers_after_its_client_left(started: bool, done: asyncio.Event) -> Any:
    """A raw ASGI app that (once ``started``, after a first chunk) waits for its client to leave, then still
    answers, as an MCP call does whose caller gave up while it waited."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        head = {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]}
        if started:
            await send(head)
            await send({"type": "http.response.body", "body": b"first\n", "more_body": True})
        while (await receive())["type"] != "http.disconnect":
            pass
        if not started:
            await send(head)
        await send({"type": "http.response.body", "body": b"late\n", "more_body": True})
        await send({"type": "http.response.body", "body": b""})
        done.set()

    return app


@pytest.mark.parametrize("started", [True, False], ids=["mid-response", "before-response"])
async def test_mount_asgi_app_answering_after_its_client_left_ends_quietly(
    started: bool, caplog: pytest.LogCaptureFixture
) -> None:
    done = asyncio.Event()
    application = web.Application()
    mount_asgi(application, "/inner", _answers_after_its_client_left(started, done))
    async with _serving(application) as http:
        if started:
            response = await http.get("/inner/wait")
            assert await response.content.readline() == b"first\n"
            response.close()
        else:
            with pytest.raises(asyncio.TimeoutError):
                await http.get("/inner/wait", timeout=aiohttp.ClientTimeout(total=0.5))
        await asyncio.wait_for(done.wait(), 10)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
