"""A local OpenAI-compatible chat server for tests that run litellm for real.

    async with serve_openai() as server:
        server.reply('{"steps": []}')
        server.fail(500)                      # the next request gets a 500
        model = LiteLLMModel("openai/test-model", api_base=server.base_url)

It binds 127.0.0.1 on an ephemeral port, answers ``POST /v1/chat/completions``
(and ``/chat/completions``) from a queue of scripted replies, and records every
request body. A request with nothing left in the queue gets a 500 whose message
says so, and is counted in :attr:`FakeOpenAI.unscripted` so a test can assert on it.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from aiohttp import web

__all__ = ["FakeOpenAI", "Reply", "serve_openai"]


@dataclass(frozen=True)
class Reply:
    """One scripted answer: a message content, or an error status."""

    content: str = ""
    status: int = 200
    delay: float = 0.0
    error: str = ""


class FakeOpenAI:
    def __init__(self, *, delay: float = 0.0, schemas: bool = True) -> None:
        self.delay = delay
        self.schemas = schemas  # False: a JSON-schema response format gets a 400, as from a provider without it
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.unscripted = 0
        self.reported: list[tuple[int, int]] = []  # (prompt, completion) tokens each answer reported
        self._replies: deque[Reply] = deque()
        self._ids = itertools.count(1)
        self._runner: web.AppRunner | None = None
        self.port = 0

    # --- scripting ---------------------------------------------------------

    def reply(self, *contents: str, delay: float = 0.0) -> None:
        """Queue one successful answer per content."""
        for content in contents:
            self._replies.append(Reply(content=content, delay=delay))

    def fail(self, status: int = 500, *, times: int = 1, message: str = "", delay: float = 0.0) -> None:
        """Queue ``times`` error answers with this HTTP status (429, 500, 503...)."""
        text = message or f"scripted failure {status}"
        for _ in range(times):
            self._replies.append(Reply(status=status, error=text, delay=delay))

    @property
    def pending(self) -> int:
        return len(self._replies)

    @property
    def base_url(self) -> str:
        if not self.port:
            raise RuntimeError("the fake OpenAI server is not running; use 'async with serve_openai()'")
        return f"http://127.0.0.1:{self.port}/v1"

    # --- serving -----------------------------------------------------------

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._completions)
        app.router.add_post("/chat/completions", self._completions)
        self._runner = web.AppRunner(app, access_log=None, handler_cancellation=True)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.port = int(port)

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _completions(self, request: web.Request) -> web.Response:
        body: dict[str, Any] = await request.json()
        self.requests.append(body)
        self.paths.append(request.path)
        if not self.schemas and (body.get("response_format") or {}).get("type") == "json_schema":
            return _error(400, "response_format of type json_schema is not supported by this model")
        if not self._replies:
            self.unscripted += 1
            n = len(self.requests)
            return _error(500, f"fake OpenAI server: no scripted reply left for request #{n}")
        reply = self._replies.popleft()
        delay = reply.delay or self.delay
        if delay:
            await asyncio.sleep(delay)
        if reply.status != 200:
            return _error(reply.status, reply.error)
        # Tokens as a provider would count them, roughly: words in, words out.
        prompt = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
        completion = len(reply.content.split())
        self.reported.append((prompt, completion))
        return web.json_response(
            {
                "id": f"chatcmpl-fake-{next(self._ids)}",
                "object": "chat.completion",
                "created": 1_700_000_000,
                "model": str(body.get("model", "fake")),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": reply.content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                },
            }
        )


def _error(status: int, message: str) -> web.Response:
    kind = {429: "rate_limit_error", 400: "invalid_request_error"}.get(status, "server_error")
    return web.json_response({"error": {"message": message, "type": kind, "code": None}}, status=status)


@asynccontextmanager
async def serve_openai(*, delay: float = 0.0, schemas: bool = True) -> AsyncIterator[FakeOpenAI]:
    """Run a :class:`FakeOpenAI` on 127.0.0.1 for the duration of the block."""
    server = FakeOpenAI(delay=delay, schemas=schemas)
    await server.start()
    try:
        yield server
    finally:
        await server.close()
