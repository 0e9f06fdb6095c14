"""``tandem tools``: every tool the agent may use, where it comes from (its module or MCP server), its risk
and why, and what is wrong with a server (not reachable, a tool left out)."""

from __future__ import annotations

import argparse
import json
from contextlib import AsyncExitStack
from typing import Any

from agent.config import load_config
from agent.settings import CoreSettings
from agent.tools import ToolRegistry, load_tools


async def tools_command(args: argparse.Namespace, settings: CoreSettings) -> int:
    config = load_config(settings.config)
    tools = load_tools(settings.tool_modules)
    servers: list[dict[str, Any]] = []
    async with AsyncExitStack() as stack:
        if config.mcp.servers:  # only then is the MCP SDK imported
            from agent.mcptools.toolset import mcp_toolsets

            for status in await stack.enter_async_context(mcp_toolsets(config, tools)):
                servers.append(
                    {
                        "name": status.name,
                        "where": status.where,
                        "trust": config.mcp.servers[status.name].trust,
                        "problem": status.problem,
                        "not_allowed": status.not_allowed,
                        "clashes": status.clashes,
                        "missing": status.missing,
                    }
                )
        rows = _rows(tools)
    if args.json:
        print(json.dumps({"tools": rows, "servers": servers}, indent=2, ensure_ascii=False))
        return 0
    name_width = max((len(r["name"]) for r in rows), default=4)
    source_width = max((len(r["source"]) for r in rows), default=6)
    for row in rows:
        print(f"{row['name']:<{name_width}}  {row['risk']:<6}  {row['source']:<{source_width}}  {row['why']}")
    for server in servers:
        print(_server_line(server))
    return 0


def _rows(tools: ToolRegistry) -> list[dict[str, Any]]:
    specs = sorted(tools.specs(), key=lambda s: (s.source, s.name))
    return [
        {
            "name": spec.name,
            "risk": spec.risk.label,
            "source": spec.source,
            "why": spec.risk_why,
            "idempotent": spec.idempotent,
        }
        for spec in specs
    ]


def _server_line(server: dict[str, Any]) -> str:
    head = f"MCP server {server['name']} ({server['trust']}, {server['where']})"
    if server["problem"] is not None:
        return f"{head}: not reachable ({server['problem']}); its tools are not offered until it answers."
    notes = []
    if server["clashes"]:
        notes.append(f"not offered, as another tool has the name: {', '.join(server['clashes'])}")
    if server["not_allowed"]:
        notes.append(f"not in the allow-list: {', '.join(server['not_allowed'])}")
    if server["missing"]:
        notes.append(f"the policy names {', '.join(server['missing'])}, which the server does not list")
    return f"{head}: connected" + (f"; {'; '.join(notes)}" if notes else "") + "."
