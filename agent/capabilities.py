"""What a toolset can do, said in a line or two (for a task or an instruction no tool can do)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

SHOWN = 12
LEAD = "What I can do here:"


def say_can_do(tools: Sequence[str], known: Mapping[str, Sequence[str]]) -> str:
    """``What I can do here: list services, restart service, … — for service: payments, checkout.``"""
    if not tools:
        return "No tools are loaded here, so there is nothing I can do."
    actions = ", ".join(t.replace("_", " ") for t in tools[:SHOWN])
    more = f" and {len(tools) - SHOWN} more" if len(tools) > SHOWN else ""
    targets = "; ".join(
        f"{name.replace('_', ' ')}: {', '.join(values[:10])}" for name, values in known.items() if values
    )
    return f"{LEAD} {actions}{more}" + (f" — for {targets}." if targets else ".")
