"""An MCP server for tests whose tools ask their client questions (elicitation), written with the SDK:

    python -m tests.mcpservers.eliciting              # stdio
    python -m tests.mcpservers.eliciting --http PORT  # streamable HTTP on 127.0.0.1:PORT/mcp

``move_service`` asks where to move a service (a region from a list, a number of replicas with a default,
and whether to drain first) before it moves it; on a 2026-07-28 connection the SDK asks through
``input_required`` round trips. ``connect_account`` asks in URL mode (sign in on a page, then done).
``rotate_key`` asks why in a text field, and fails the call without a reason. Every move, rotation or
connection that takes effect appends a line saying so to ``$OPS_LOG`` (when set), one declined or cancelled
appends ``kept NAME ACTION``, and every round a question is asked appends ``asked``, so a test sees what ran
and how often. With ``$ELICIT_KEY`` set, the server seals its request state with that key, so a restarted
server still accepts the answers to a question its previous process asked.
"""

from __future__ import annotations

import os
import sys
from typing import Annotated, Literal

from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.server.request_state import RequestStateSecurity
from mcp_types import ElicitRequest, ElicitRequestURLParams, ElicitResult, InputRequiredResult, ToolAnnotations
from pydantic import BaseModel, Field

key = os.environ.get("ELICIT_KEY")
security = RequestStateSecurity(keys=[key], ttl=3600) if key else None
server = MCPServer("deploys", log_level="WARNING", request_state_security=security)


def _log(line: str) -> None:
    if log := os.environ.get("OPS_LOG"):
        with open(log, "a") as f:
            f.write(line + "\n")


class Target(BaseModel):
    region: Literal["eu-west-1", "us-east-1"] = Field(title="Region", description="where the service runs next")
    replicas: int = Field(default=2, title="Replicas")
    drain: bool = Field(title="Drain first")


def ask_target(service: str) -> Elicit[Target]:
    _log("asked")
    return Elicit(f"Where should {service} move?", Target)


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
def move_service(service: str, target: Annotated[ElicitationResult[Target], Resolve(ask_target)]) -> str:
    """Move a service to another region (asks where)."""
    if not isinstance(target, AcceptedElicitation):
        _log(f"kept {service} {target.action}")
        return f"{service} not moved ({target.action})"
    t = target.data
    _log(f"move {service} {t.region} {t.replicas} {str(t.drain).lower()}")
    return f"{service} moved to {t.region} with {t.replicas} replicas" + (", drained first" if t.drain else "")


class Rotation(BaseModel):
    reason: str = Field(title="Reason", description="why the key is rotated")


def ask_reason(key: str) -> Elicit[Rotation]:
    _log("asked")
    return Elicit(f"Why rotate {key}?", Rotation)


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
def rotate_key(key: str, why: Annotated[ElicitationResult[Rotation], Resolve(ask_reason)]) -> str:
    """Rotate an API key (asks why, and fails without a reason)."""
    if not isinstance(why, AcceptedElicitation):
        _log(f"kept {key} {why.action}")
        raise ToolError(f"{key} not rotated: a reason is required ({why.action})")
    _log(f"rotate {key}")
    return f"{key} rotated"


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
def connect_account(account: str, ctx: Context) -> str | InputRequiredResult:
    """Connect an account (the person signs in on the provider's page first)."""
    answer = (ctx.input_responses or {}).get("sign-in")
    if not isinstance(answer, ElicitResult):
        _log("asked")
        url = f"https://auth.example.com/authorize?account={account}"
        ask = ElicitRequestURLParams(message=f"Sign in to {account}", url=url, elicitation_id=f"sign-in-{account}")
        return InputRequiredResult(input_requests={"sign-in": ElicitRequest(params=ask)}, request_state="sign-in")
    _log(f"connect {account} {answer.action}")
    return f"{account} connected" if answer.action == "accept" else f"{account} not connected ({answer.action})"


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":  # streamable HTTP on 127.0.0.1:PORT/mcp
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
