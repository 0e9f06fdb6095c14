"""The benchmark's tools: two cheap reads and one risky deploy, registered with ``@tool``.

They do no I/O so the figures measure Tandem (runtime, machine, storage), not the tools.
Plain sync functions, like the demo tools: the runtime calls them in a worker thread.
"""

from __future__ import annotations

from typing import Literal

from agent.models import Risk
from agent.tools import tool

Service = Literal["api", "web", "worker"]


@tool(risk=Risk.READ)
def check_status(service: Service) -> str:
    """Show a service's status.

    Args:
        service: The service to check.
    """
    return f"{service}: running, 3 replicas, 0.1% errors"


@tool(risk=Risk.READ)
def read_logs(service: Service, limit: int = 20) -> str:
    """Read a service's recent log lines.

    Args:
        service: The service whose logs to read.
        limit: How many lines to read.
    """
    return f"{service}: last {limit} lines, no errors"


@tool(risk=Risk.DEPLOY)
def deploy(service: Service, version: str) -> str:
    """Deploy a version of a service.

    Args:
        service: The service to deploy.
        version: The release to roll out, like 2.4.2.
    """
    return f"{service} is now at {version}"
