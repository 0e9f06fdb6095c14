"""A tool whose output is far too long for one Slack message."""

from __future__ import annotations

from typing import Literal

from agent.tools import Risk, tool


@tool(risk=Risk.READ)
def dump_config(service: Literal["payments", "checkout"]) -> str:
    """Dump the full configuration of a service.

    Args:
        service: the service
    """
    return "\n".join(f"{service}.setting_{i:05d} = value-{i}" for i in range(2500)) + "\nEND-OF-CONFIG"
