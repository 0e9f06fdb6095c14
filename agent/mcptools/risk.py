"""A tool's risk from what its server says about it, how far the server is trusted, and the policy.

========================================  =========
What the server's annotations say         Risk
========================================  =========
``readOnlyHint: true``                    read
``destructiveHint: false``                write
anything else (the spec's defaults)       exec
========================================  =========

Only a trusted server's annotations count (the spec: never decide from an untrusted server's); every tool
of an untrusted server is gated (exec, or the policy's gate level if that is higher). A ``risk`` override in
the policy always wins.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.config_mcp import McpServer
from agent.models import Risk


@dataclass(frozen=True)
class Hints:
    """A tool's annotations as the server lists them (None: not given)."""

    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None


@dataclass(frozen=True)
class Judged:
    risk: Risk
    why: str
    idempotent: bool


def judge(server_name: str, server: McpServer, tool: str, hints: Hints, gate: Risk) -> Judged:
    """The risk of ``tool`` of ``server`` and why; whether a call cut off by a crash may be made again unasked
    (only a trusted server's ``idempotentHint``). ``gate``: the policy's gate level (``confirm_threshold``)."""
    trusted = server.trust == "trusted"
    idempotent = trusted and bool(hints.idempotent) and not hints.read_only
    if tool in server.risk:
        risk = Risk.parse(server.risk[tool])
        return Judged(risk, f"{risk.label}: set by the policy for server {server_name}", idempotent)
    if not trusted:
        risk = max(Risk.EXEC, gate)
        return Judged(risk, f"{risk.label}: untrusted server {server_name}, no override", idempotent)
    if hints.read_only:
        return Judged(Risk.READ, f"read: trusted server {server_name} says read-only (readOnlyHint)", idempotent)
    if hints.destructive is False:
        return Judged(
            Risk.WRITE, f"write: trusted server {server_name} says not destructive (destructiveHint false)", idempotent
        )
    said = "destructive (destructiveHint)" if hints.destructive else "nothing of its effects (the spec's defaults)"
    return Judged(Risk.EXEC, f"exec: trusted server {server_name} says {said}", idempotent)
