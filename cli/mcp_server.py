"""``tandem mcp``: Tandem as a stdio MCP server (see :mod:`api.mcp_server`), asking as ``mcp:NAME``.

The name comes from ``--as NAME`` or ``TANDEM_MCP_NAME``: it keys the handoffs this client asked (and their
idempotency keys) and is who the audit trail says asked. The running bot (``tandem serve``) on the same
database posts each question and takes its answer; this process only writes the handoff and reads it back.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

from agent.asking import Asking, McpCaller
from agent.settings import CoreSettings
from cli.policy import checked_policy
from cli.wiring import database_exists, open_services

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def caller_name(args: argparse.Namespace) -> str | None:
    """The client's name from ``--as`` or ``TANDEM_MCP_NAME``, or None (with the error printed) when unusable."""
    name = args.name or os.environ.get("TANDEM_MCP_NAME", "")
    if not name:
        print(
            "error: tandem mcp needs the client's name: --as NAME or TANDEM_MCP_NAME (audited as mcp:NAME)",
            file=sys.stderr,
        )
        return None
    if not NAME.fullmatch(name):
        print(f"error: {name!r} is no name for an MCP client: use letters, digits, '.', '_' or '-'", file=sys.stderr)
        return None
    return name


async def mcp_command(args: argparse.Namespace, settings: CoreSettings) -> int:
    from api.mcp_server import HandoffTools, always, build_server  # only this command imports the MCP SDK

    name = caller_name(args)
    if name is None:
        return 2
    if not database_exists(settings.db):
        print(f"error: no database at {settings.db}; point TANDEM_DB at the one the bot uses", file=sys.stderr)
        return 1
    checked_policy(settings.config, announce=False)
    async with open_services(settings) as services:
        asking = Asking(services.store, services.runtime, services.usecases)
        tools = HandoffTools(asking, always(McpCaller(name)), progress_every=args.progress_every)
        await build_server(tools).run_stdio_async()
    return 0
