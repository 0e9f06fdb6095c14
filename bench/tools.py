"""The benchmark's tools: two cheap reads and one risky deploy, registered with ``@tool``.

They do no I/O so the figures measure Tandem (runtime, machine, storage), not the tools.
Async functions, as an async bot writes them (and as the LangGraph baseline writes its nodes): the runtime
awaits them on its loop. A plain function would be called in a worker thread, one hop each way.
"""

from __future__ import annotations

from typing import Literal

from agent.models import Risk
from agent.tools import tool

Service = Literal["api", "web", "worker"]


@tool(risk=Risk.READ)
async def check_status(service: Service) -> str:
    """Show a service's status.

    Args:
        service: The service to check.
    """
    return f"{service}: running, 3 replicas, 0.1% errors"


@tool(risk=Risk.READ)
async def read_logs(service: Service, limit: int = 20) -> str:
    """Read a service's recent log lines.

    Args:
        service: The service whose logs to read.
        limit: How many lines to read.
    """
    return f"{service}: last {limit} lines, no errors"


@tool(risk=Risk.DEPLOY)
async def deploy(service: Service, version: str) -> str:
    """Deploy a version of a service.

    Args:
        service: The service to deploy.
        version: The release to roll out, like 2.4.2.
    """
    return f"{service} is now at {version}"
