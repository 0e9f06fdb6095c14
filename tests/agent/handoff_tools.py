"""Tools that ask people things, for handoff tests (also loaded by subprocesses via TANDEM_TOOLS)."""

from __future__ import annotations

import os
from pathlib import Path

from agent import human
from agent.tools import Risk, tool


def _record(line: str) -> None:
    folder = os.environ.get("HANDOFF_TOOLS_DIR")
    if folder:
        with (Path(folder) / "moves.log").open("a") as f:
            f.write(line + "\n")


@tool(risk=Risk.WRITE)
async def move_service(service: str) -> str:
    """Move a service to another region.

    Args:
        service: the service to move
    """
    region = await human.ask(
        f"Which region should {service} move to?",
        input_type="choice",
        options=["eu-west-1", "us-east-1", "other"],
        reason="ambiguous intent",
        context={"service": service, "current": "us-west-2"},
    )
    if region == "other":
        region = await human.ask("Type the region", input_type="text", max_length=20)
    _record(f"{service}->{region}")
    return f"{service} moved to {region}"


@tool(risk=Risk.READ)
def confirm_window(window: str) -> str:
    """Check a maintenance window with a person.

    Args:
        window: the window, e.g. 02:00-03:00
    """
    ok = human.ask_now(
        f"Is {window} a good maintenance window?",
        input_type="confirm",
        timeout=600,
        on_timeout="use_default",
        default=False,
    )
    return f"window {window} {'confirmed' if ok else 'declined'}"


@tool(risk=Risk.READ)
async def scale_service(service: str) -> str:
    """Scale a service to as many replicas as a person says.

    Args:
        service: the service to scale
    """
    replicas = await human.ask(f"How many replicas for {service}?", input_type="number")
    return f"{service} scaled to {replicas} replicas ({type(replicas).__name__})"
