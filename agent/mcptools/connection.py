"""One MCP server's session, kept in one place: connecting (stdio or streamable HTTP), listing its tools at
start and again whenever it says they changed, calling them, and connecting again after a loss.

The session lives in a task of its own (the SDK's task groups must be entered and left in one task); calls
are made from the worker's tasks. A server that is down or stops answering is never a hang: a call is made
only on a live session, and a session that breaks ends every call on it with the reason.

A server's questions (elicitation) come back as ``input_required`` results of a call; :mod:`.elicit` turns
them into questions for people. One asked mid-call (a server on an older revision) is answered ``cancel`` at
once: a person's answer may take hours, and a call is never held open that long.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any

import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import ListenNotSupportedError
from mcp.shared.exceptions import MCPError

from agent import human
from agent.config_mcp import McpServer
from agent.errors import ToolError
from agent.mcptools import elicit, messages
from agent.mcptools.risk import Hints

log = logging.getLogger("tandem.mcp")

REQUEST_TIMEOUT = 10.0
"""Seconds a listing (or the connection's handshake) may take; a tool call is bounded by its step's timeout."""
RETRY_AFTER = (1.0, 5.0, 30.0)
"""Seconds between attempts to connect again after a loss (the last repeats)."""
CLOSE_WITHIN = REQUEST_TIMEOUT + 5.0
"""Seconds :meth:`ServerConnection.close` lets the session wind down: a connect under way finishing (its
handshake is bounded by ``REQUEST_TIMEOUT``) and the SDK stopping the server (about 4.5 s at worst: a flush,
a grace period for the server to exit, then a kill). Only past it is the session cancelled."""


_OPTIONS: dict[str, Any] = {"read_timeout_seconds": REQUEST_TIMEOUT, "cache": None}


@dataclass(frozen=True)
class Listed:
    """One tool as the server lists it."""

    name: str
    description: str
    input_schema: dict[str, Any]
    hints: Hints


Listing = Callable[[list[Listed]], None]


class ServerConnection:
    """The session with server ``name``. :meth:`start` connects (waiting up to ``connect_timeout`` for it),
    ``on_listing`` gets each listing of its tools, :meth:`call` calls one, :meth:`close` ends it."""

    def __init__(self, name: str, server: McpServer, on_listing: Listing) -> None:
        self.name = name
        self.server = server
        self.on_listing = on_listing
        self.problem: str | None = "not connected yet"
        self._client: Client | None = None
        self._first = asyncio.Event()
        self._lost = asyncio.Event()
        self._stop = asyncio.Event()
        self._relists: set[asyncio.Task[None]] = set()
        self._http_error: str | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def connected(self) -> bool:
        return self._client is not None

    async def start(self, connect_timeout: float) -> None:
        self._task = asyncio.create_task(self._keep(), name=f"mcp-{self.name}")
        try:
            await asyncio.wait_for(self._first.wait(), connect_timeout)
        except TimeoutError:
            self.problem = f"no answer within {connect_timeout:g} s"

    async def close(self) -> None:
        """End the session the way it ends itself, so the SDK stops a server process it started: a connect under
        way finishes first (a cancel landing while the SDK spawns a server would leave the process running).
        Cancelled only if it has not ended within ``CLOSE_WITHIN`` seconds."""
        task = self._task
        if task is None:
            return
        self._stop.set()
        try:
            await asyncio.wait({task}, timeout=CLOSE_WITHIN)
        finally:
            if not task.done():
                log.warning("MCP server %s: the session did not end within %g s; cancelled", self.name, CLOSE_WITHIN)
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)

    async def call(self, tool: str, /, **args: Any) -> Any:
        """Call ``tool`` with ``args`` (checked already against its listed schema); its result, or a
        :class:`ToolError` that says what happened: not connected (the call was not made), the session lost
        mid-call (it may or may not have taken effect), or the tool's own error."""
        responses, state = elicit.resume(self.name, human.given(), self.server.elicit_timeout)  # a field left: ask
        client = self._client
        if client is None:
            raise ToolError(f"MCP server {self.name} is not reachable ({self.problem}); the call was not made.")
        try:
            result = await client.session.call_tool(
                tool, args, input_responses=responses, request_state=state, allow_input_required=True
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if state is not None and elicit.stale_state(exc):  # the server refused the answers' state
                raise ToolError(messages.answer_too_late(tool, self.name)) from None
            self._lost.set()  # the session is connected again for the next call
            why = self._why(exc)
            raise ToolError(
                f"MCP server {self.name} failed during the call ({why}); it may or may not have taken effect."
            ) from None
        if isinstance(result, types.InputRequiredResult):  # the server asks: its people answer, then again
            requests = elicit.requests_of(self.name, tool, result)
            elicit.ask_next(
                self.name, result.request_state, requests, {}, len(human.given()), self.server.elicit_timeout
            )
        if not isinstance(result, types.CallToolResult):
            raise ToolError(f"{tool} (MCP server {self.name}) answered with a {type(result).__name__}, not a result.")
        if result.is_error:
            raise ToolError(f"{tool} (MCP server {self.name}) failed: {_text(result) or 'no reason given'}")
        return _value(result)

    async def _keep(self) -> None:
        attempt = 0
        while not self._stop.is_set():
            try:
                async with AsyncExitStack() as stack:
                    self._lost.clear()
                    self._http_error = None
                    client = await stack.enter_async_context(self._client_for(stack))
                    if self._stop.is_set():  # closed while connecting: the stack stops the server
                        return
                    await self._list(client)
                    self._client, self.problem, attempt = client, None, 0
                    self._first.set()
                    log.info("MCP server %s connected (protocol %s)", self.name, client.protocol_version)
                    await self._follow(client)
            except asyncio.CancelledError:
                raise
            except BaseException as exc:  # an ExceptionGroup from the SDK's task group too
                self.problem = self._why(exc)
                level = logging.WARNING if attempt == 0 else logging.DEBUG  # said once, not at every retry
                log.log(level, "MCP server %s is not reachable: %s", self.name, self.problem)
            finally:
                self._client = None
            self._first.set()
            await self._pause(RETRY_AFTER[min(attempt, len(RETRY_AFTER) - 1)])
            attempt += 1

    async def _pause(self, seconds: float) -> None:
        """Wait ``seconds`` before connecting again, or until the connection is closed."""
        try:
            await asyncio.wait_for(self._stop.wait(), seconds)
        except TimeoutError:
            pass

    def _client_for(self, stack: AsyncExitStack) -> Client:
        server = self.server
        handler = self._on_message
        if server.command is not None:
            params = StdioServerParameters(command=server.command[0], args=server.command[1:], env=server.env or None)
            return Client(params, message_handler=handler, elicitation_callback=self._mid_call, **_OPTIONS)
        http = httpx2.AsyncClient(
            headers=server.headers, timeout=httpx2.Timeout(30.0, read=300.0), event_hooks={"response": [self._saw]}
        )
        stack.push_async_callback(http.aclose)
        transport = streamable_http_client(str(server.url), http_client=http)
        return Client(transport, message_handler=handler, elicitation_callback=self._mid_call, **_OPTIONS)

    async def _mid_call(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        """A question asked mid-call (not as a round trip): answered ``cancel`` at once (see the module doc)."""
        log.warning("MCP server %s asked mid-call (%s): answered cancel", self.name, params.message[:200])
        return types.ElicitResult(action="cancel")

    async def _saw(self, response: httpx2.Response) -> None:
        """Keep an HTTP error's status: the SDK reports it only as "Server returned an error response"."""
        if response.status_code >= 400:
            self._http_error = f"HTTP {response.status_code} {response.reason_phrase}".strip()

    def _why(self, exc: BaseException) -> str:
        said, self._http_error = self._http_error, None
        return f"{_reason(exc)}, {said}" if said else _reason(exc)

    async def _follow(self, client: Client) -> None:
        """Follow the session until it ends (an error) or the connection is closed (a return)."""
        following = asyncio.ensure_future(self._changes(client))
        stopping = asyncio.ensure_future(self._stop.wait())
        try:
            await asyncio.wait({following, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (following, stopping):
                task.cancel()
            await asyncio.gather(following, stopping, return_exceptions=True)
        if not self._stop.is_set():
            following.result()  # its error

    async def _changes(self, client: Client) -> None:
        """Listen for ``tools/list_changed`` until the session ends (a 2026-07-28 server streams it on a
        subscription; an older one sends it as a notification, see :meth:`_on_message`)."""
        try:
            async with client.listen(tools_list_changed=True) as changes:
                async for _ in changes:
                    await self._list(client)
        except (ListenNotSupportedError, MCPError) as exc:  # an older server, or one that does not serve it
            log.debug("MCP server %s: no subscription to its changes (%s)", self.name, _reason(exc))
        await self._lost.wait()  # a call found the session broken (else it ends by an error of the SDK's tasks)
        raise ToolError("the session broke during a call")

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification) and self._client is not None:
            task = asyncio.get_running_loop().create_task(self._list_again(self._client))
            self._relists.add(task)
            task.add_done_callback(self._relists.discard)

    async def _list_again(self, client: Client) -> None:
        try:
            await self._list(client)
        except Exception as exc:
            log.warning("MCP server %s: listing its tools again failed: %s", self.name, _reason(exc))

    async def _list(self, client: Client) -> None:
        listed: list[Listed] = []
        cursor: str | None = None
        while True:
            page = await client.list_tools(cursor=cursor, cache_mode="refresh")
            for tool in page.tools:
                notes = tool.annotations
                hints = Hints(
                    read_only=notes.read_only_hint if notes else None,
                    destructive=notes.destructive_hint if notes else None,
                    idempotent=notes.idempotent_hint if notes else None,
                )
                schema = {k: v for k, v in dict(tool.input_schema).items() if k != "title"}
                listed.append(Listed(tool.name, tool.description or "", schema, hints))
            cursor = page.next_cursor
            if cursor is None:
                break
        self.on_listing(listed)


def _reason(exc: BaseException) -> str:
    """The innermost cause of a failure, in a line (the SDK wraps transport errors in exception groups)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _text(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


def _value(result: types.CallToolResult) -> Any:
    """What the call returned: its structured content (``{"result": x}``, the SDK's wrapping of a plain value,
    as ``x``), else its text."""
    data = result.structured_content
    if isinstance(data, dict) and set(data) == {"result"}:
        return data["result"]
    return data if data is not None else _text(result)
