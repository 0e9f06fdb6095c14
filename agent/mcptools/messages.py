"""What people read about MCP calls that ask them something."""

from __future__ import annotations


def answer_too_late(tool: str, server: str) -> str:
    return (
        f"{tool} (MCP server {server}) no longer accepts the answers to its question: the state it gave with "
        "the question has expired, or the server restarted without keeping its key. The call did not complete; "
        "run the step again to be asked again."
    )
