"""What the pure machine's tests build events from: a fresh time and nonce per event, and proposed steps."""

from __future__ import annotations

import itertools
from typing import Any

from agent.models import ProposedStep, Risk

_ticks = itertools.count(1)


def at() -> dict[str, Any]:
    """A new event's ``at`` and ``nonce`` (later than the last one's)."""
    n = next(_ticks)
    return {"at": 1000.0 + n, "nonce": f"n{n}"}


def step(tool: str, risk: Risk = Risk.READ, **params: Any) -> ProposedStep:
    return ProposedStep(tool=tool, params=params, reason=f"because {tool}", risk=risk)
