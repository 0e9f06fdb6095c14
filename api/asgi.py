"""ASGI apps served inside `tandem serve`'s aiohttp app, on the same port.

The MCP endpoint, the A2A server and the web inbox are built on Starlette (the `mcp` and `a2a-sdk` packages ship
Starlette apps); Slack's events and the REST API are aiohttp. One listener serves both: each ASGI app is mounted
under its own path prefix, gets its lifespan events with the aiohttp app's start and stop, and streams its
responses (server-sent events) through as they are written.

`aiohttp-asgi` does the bridging, with one fix: once a request's body is read, its ``receive`` answered at once
with another empty body, so an app that listens for the client going away (every streaming response does) spun
without yielding and held the event loop. Here ``receive`` then waits until the client has gone and says so,
and what the app sends after that is dropped.
"""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web
from aiohttp_asgi import ASGIResource
from aiohttp_asgi.resource import ASGIContext

# How often a streaming response checks whether its client has gone (the connection closing has no hook here).
GONE_POLL = 0.5


class _Context(ASGIContext):
    _body_read = False

    async def on_receive(self) -> dict[str, Any]:
        if self.is_websocket():
            return await super().on_receive()
        if not self._body_read:
            message = await super().on_receive()
            self._body_read = not message["more_body"]
            return message
        while not self._client_gone():  # noqa: ASYNC110 (a closing connection has no hook to wait on)
            await asyncio.sleep(GONE_POLL)
        return {"type": "http.disconnect"}

    async def on_send(self, payload: dict[str, Any]) -> None:
        # What is sent after the client has gone is dropped, as the ASGI spec allows (an app waiting long, as an
        # MCP call waiting for a person does, would otherwise fail loudly whenever its caller gave up).
        if self._client_gone():
            return
        try:
            await super().on_send(payload)
        except ConnectionResetError:  # it went away while this was written
            pass

    async def get_response(self) -> web.StreamResponse:
        await self.app(self.scope, self.on_receive, self.on_send)
        if self.response is not None:
            return self.response
        if self._client_gone():  # it went away before the app answered: nothing is sent
            return web.Response(status=499)
        raise RuntimeError("the ASGI app ended without a response")

    def _client_gone(self) -> bool:
        transport = self.request.transport
        return transport is None or transport.is_closing()


class _Resource(ASGIResource):
    async def _handle(self, request: web.Request) -> web.StreamResponse:
        return await _Context(self._asgi_app, request, self._root_path).get_response()


def mount_asgi(application: web.Application, prefix: str, asgi_app: Any) -> None:
    """Serve ``asgi_app`` for every path under ``prefix`` (``/mcp`` serves ``/mcp`` and ``/mcp/...``).

    The app sees ``root_path=prefix`` and the full path, as under any ASGI server mounted at a prefix: its own
    routes are written without the prefix (a Starlette ``Route("/hello")`` answers ``/mcp/hello``).
    """
    if not prefix.startswith("/") or prefix.endswith("/"):
        raise ValueError(f"an ASGI mount needs a prefix like /mcp, not {prefix!r}")
    resource = _Resource(asgi_app, root_path=prefix)
    application.router.register_resource(resource)
    resource.lifespan_mount(application)
