"""A small ops MCP server for tests, written with the official SDK: annotated read, write, destructive and
idempotent tools, a slow one, and one that adds a tool (``tools/list_changed``).

    python -m tests.mcpservers.ops                  # stdio
    python -m tests.mcpservers.ops --http PORT      # streamable HTTP on 127.0.0.1:PORT/mcp
    python -m tests.mcpservers.ops --http PORT --token T   # ... answering only ``Authorization: Bearer T``

Every call that takes effect appends its name to ``$OPS_LOG`` (when set), so a test sees what ran and how
often, and ``$OPS_LOG.pid`` says which process took the last one; while the file ``$OPS_LOG.hold`` exists,
``delete_pod`` and ``apply_manifest`` wait after logging (a call held mid-way).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ToolAnnotations

server = MCPServer("ops", log_level="WARNING")


def _log(name: str) -> None:
    if log := os.environ.get("OPS_LOG"):
        Path(log + ".pid").write_text(str(os.getpid()))  # which process has the call (a test may kill it)
        with open(log, "a") as f:
            f.write(name + "\n")


def _wait_while_held() -> None:
    if log := os.environ.get("OPS_LOG"):
        while Path(log + ".hold").exists():
            time.sleep(0.05)


async def _held() -> None:
    await asyncio.to_thread(_wait_while_held)


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def get_pods(namespace: str) -> str:
    """List the pods of a namespace."""
    _log("get_pods")
    return f"{namespace}: web-1 Running, web-2 Running"


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
def scale_deployment(deployment: str, replicas: int) -> str:
    """Scale a deployment to a number of replicas."""
    _log("scale_deployment")
    return f"{deployment} scaled to {replicas}"


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
async def delete_pod(pod: str) -> str:
    """Delete a pod (its deployment starts a new one)."""
    _log("delete_pod")
    await _held()
    return f"pod {pod} deleted"


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True))
async def apply_manifest(manifest: str) -> str:
    """Apply a manifest (applying it again changes nothing)."""
    _log("apply_manifest")
    await _held()
    return f"{manifest} applied"


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
async def slow_status(seconds: float) -> str:
    """Report the status after a wait."""
    await asyncio.sleep(seconds)
    return "ok"


def rollout_status(deployment: str) -> str:
    """Show the rollout status of a deployment."""
    return f"{deployment}: rolled out"


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
async def enable_rollouts(ctx: Context) -> str:
    """Offer the rollout tools too."""
    server.add_tool(rollout_status, annotations=ToolAnnotations(read_only_hint=True))
    await ctx.notify_tools_changed()
    return "rollout tools enabled"


def _bearer_only(app: Any, token: str) -> Any:
    """``app``, answering 401 to an HTTP request without ``Authorization: Bearer TOKEN``."""

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and (b"authorization", f"Bearer {token}".encode()) not in scope["headers"]:
            await send({"type": "http.response.start", "status": 401, "headers": []})
            await send({"type": "http.response.body", "body": b"unauthorized"})
            return
        await app(scope, receive, send)

    return guarded


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, help="serve streamable HTTP on this port of 127.0.0.1")
    parser.add_argument("--token", help="with --http: refuse requests without this bearer token")
    args = parser.parse_args()
    if args.http and args.token:
        import uvicorn

        app = _bearer_only(server.streamable_http_app(), args.token)
        uvicorn.run(app, host="127.0.0.1", port=args.http, log_level="warning")
    elif args.http:
        server.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        server.run("stdio")


if __name__ == "__main__":
    main()
