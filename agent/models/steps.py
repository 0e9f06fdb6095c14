"""Plans and steps: what the planner proposes, and a step as the run carries it out."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import Field

from agent.models.base import _Model
from agent.models.risk import Risk

StepStatus = Literal["pending", "running", "waiting", "done", "failed", "skipped"]
# How a step that ran out of time ended: ``cancelled``, Tandem stopped the call; ``abandoned``,
# the call could not be stopped and is still running in the background (it may yet take effect).
TimeoutOutcome = Literal["cancelled", "abandoned"]


def params_digest(tool: str, params: dict[str, Any]) -> str:
    """A short fingerprint of exactly what a person approved."""
    blob = json.dumps({"tool": tool, "params": params}, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


class PlannedStep(_Model):
    """One step as the planner proposes it (not yet checked against the registry)."""

    tool: str
    params: dict[str, Any] = Field(default_factory=dict)
    reason: str = ""


class ProposedStep(PlannedStep):
    """A planned step that passed validation, with the tool's risk attached."""

    risk: Risk


class Step(_Model):
    number: int
    tool: str
    params: dict[str, Any] = Field(default_factory=dict)
    reason: str = ""
    risk: Risk = Risk.READ
    status: StepStatus = "pending"
    result: Any = None
    error: str | None = None
    timed_out: TimeoutOutcome | None = None  # how the last attempt ended if it ran out of time
    attempts: int = 0
    approved_digest: str | None = None
    approved_by: str | None = None
    answers: list[Any] = Field(default_factory=list)
    started_at: float | None = None
    finished_at: float | None = None

    @property
    def digest(self) -> str:
        return params_digest(self.tool, self.params)
