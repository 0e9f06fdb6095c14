"""Tools for restart tests: they record each start and can be held mid-step, or stopped before they start."""

from __future__ import annotations

import os
import time
from pathlib import Path

from agent.tools import Risk, tool


def _log(name: str) -> None:
    folder = Path(os.environ["HELD_TOOLS_DIR"])
    if (folder / "gate").exists():  # stopped before the call has any effect; the test sees where
        (folder / f"waiting-{name}").touch()
        while (folder / "gate").exists():
            time.sleep(0.05)
    with (folder / "calls.log").open("a") as f:
        f.write(name + "\n")
        f.flush()
        os.fsync(f.fileno())
    while (folder / "hold").exists():
        time.sleep(0.05)


@tool(risk=Risk.READ)
def inspect_cluster(cluster: str) -> str:
    """Inspect a cluster.

    Args:
        cluster: the cluster name
    """
    _log("inspect_cluster")
    return f"{cluster}: 3 nodes healthy"


@tool(risk=Risk.DEPLOY)
def upgrade_cluster(cluster: str) -> str:
    """Upgrade a cluster to the next version.

    Args:
        cluster: the cluster name
    """
    _log("upgrade_cluster")
    return f"{cluster} upgraded"
