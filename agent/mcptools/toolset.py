"""Every MCP server the policy names, connected for as long as a block runs, its tools in the registry.

async with mcp_toolsets(config, tools) as servers:
    ...  # tools has each server's tools (source "MCP server NAME"), kept current on tools/list_changed
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from agent.config import PolicyConfig
from agent.config_mcp import McpServer
from agent.mcptools.connection import Listed, ServerConnection
from agent.mcptools.risk import judge
from agent.models import Risk
from agent.tools import ToolRegistry, ToolSpec

log = logging.getLogger("tandem.mcp")

CONNECT_TIMEOUT = 10.0
"""Seconds start-up waits for each server (together); a server not there by then joins when it answers."""


@dataclass
class ServerStatus:
    """What ``tandem tools`` says of a server besides its tools."""

    name: str
    where: str
    connection: ServerConnection
    not_allowed: list[str] = field(default_factory=list)
    """Tools it lists that the policy's allow-list leaves out."""
    clashes: list[str] = field(default_factory=list)
    """Tools it lists that are not offered because another source has a tool of that name."""
    missing: list[str] = field(default_factory=list)
    """Tools the policy names (its allow-list, its risk overrides) that the server does not list."""

    @property
    def problem(self) -> str | None:
        return self.connection.problem


def source_of(name: str) -> str:
    return f"MCP server {name}"


def specs_for(
    name: str, server: McpServer, connection: ServerConnection, listed: list[Listed], gate: Risk
) -> list[ToolSpec]:
    """The registry's view of a listing: the allowed tools, each with its risk and why."""
    specs = []
    for tool in listed:
        if server.tools is not None and tool.name not in server.tools:
            continue
        judged = judge(name, server, tool.name, tool.hints, gate)
        specs.append(
            ToolSpec(
                name=tool.name,
                description=tool.description.strip() or tool.name.replace("_", " "),
                risk=judged.risk,
                params_model=None,
                input_schema=tool.input_schema,
                fn=functools.partial(connection.call, tool.name),
                source=source_of(name),
                risk_why=judged.why,
                idempotent=judged.idempotent,
            )
        )
    return specs


@asynccontextmanager
async def mcp_toolsets(
    config: PolicyConfig, tools: ToolRegistry, connect_timeout: float = CONNECT_TIMEOUT
) -> AsyncIterator[list[ServerStatus]]:
    """Connect every server of ``config.mcp``, add their tools to ``tools`` (and keep them current), and close
    the sessions when the block ends. A server not reachable is warned about, not fatal: its tools join when it
    answers, and a call before that fails with the reason."""
    gate = Risk.parse(config.confirm_threshold)
    statuses: list[ServerStatus] = []
    for name, server in config.mcp.servers.items():
        status = ServerStatus(name, server.where, ServerConnection(name, server, lambda _: None))

        def on_listing(listed: list[Listed], status: ServerStatus = status, server: McpServer = server) -> None:
            specs = specs_for(status.name, server, status.connection, listed, gate)
            clashes = tools.replace_source(source_of(status.name), specs)
            names = {t.name for t in listed}
            status.clashes = sorted(clashes)
            status.not_allowed = sorted(
                t.name for t in listed if server.tools is not None and t.name not in server.tools
            )
            named = dict.fromkeys([*(server.tools or []), *server.risk])
            status.missing = [t for t in named if t not in names]
            for clash in clashes:
                log.warning(
                    "MCP server %s lists a tool named %s, as another source does: it is left out", status.name, clash
                )
            log.info("MCP server %s: %d tools offered", status.name, len(specs))

        status.connection.on_listing = on_listing
        statuses.append(status)
    tools.outages = lambda: [
        f"MCP server {s.name} is not reachable ({s.problem}), so its tools are not known now."
        for s in statuses
        if s.problem is not None
    ]
    try:
        await asyncio.gather(*(s.connection.start(connect_timeout) for s in statuses))
        yield statuses  # a server not reachable was warned about by its connection
    finally:
        tools.outages = list
        await asyncio.gather(*(s.connection.close() for s in statuses))
