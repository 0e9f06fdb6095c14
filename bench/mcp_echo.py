"""The MCP server the tool-call benchmark calls: one trivial read-only tool, written with the official SDK.

python -m bench.mcp_echo              # stdio
python -m bench.mcp_echo --http PORT  # streamable HTTP on 127.0.0.1:PORT/mcp
"""

from __future__ import annotations

import argparse

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

server = MCPServer("echo", log_level="WARNING")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def echo_mcp(value: int) -> int:
    """Return the value."""
    return value


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int)
    port = parser.parse_args().http
    if port:
        server.run("streamable-http", host="127.0.0.1", port=port)
    else:
        server.run("stdio")
