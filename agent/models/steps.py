"""Plans and steps: what the planner proposes, and a step as the run carries it out."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, Literal

from pydantic import Field

from agent.models.base import Model
from agent.models.risk import Risk

StepStatus = Literal["pending", "running", "waiting", "done", "failed", "skipped"]
# How a step that ran out of time ended: ``cancelled``, Tandem stopped the call; ``abandoned``,
# the call could not be stopped and is still running in the background (it may yet take effect).
TimeoutOutcome = Literal["cancelled", "abandoned"]


def params_digest(tool: str, params: dict[str, Any]) -> str:
    """A short fingerprint of exactly what a person approved."""
    blob = json.dumps({"tool": tool, "params": params}, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


NAME_MAX = 64
_NAME = re.compile(rf"\S{{1,{NAME_MAX}}}")


def target_of(params: dict[str, Any]) -> dict[str, str]:
    """What a call acts on, its **target values**: the parameters whose value names a thing, a text of one
    word (no whitespace, at most :data:`NAME_MAX` characters) such as ``service="payments"``,
    ``channel="#ops"`` or ``host="db-1"``. Quantities (``replicas=4``), flags, lists and prose
    (``text="restarting now"``) are not. Lessons and always-allow rules both say what they are about with it."""
    return {k: v for k, v in params.items() if isinstance(v, str) and _NAME.fullmatch(v)}


class PlannedStep(Model):
    """One step as the planner proposes it (not yet checked against the registry)."""

    tool: str
    params: dict[str, Any] = Field(default_factory=dict)
    reason: str = ""


class ProposedStep(PlannedStep):
    """A planned step that passed validation, with the tool's risk attached."""

    risk: Risk


class Step(Model):
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
    # The scope of the standing rule that approved it (``approved_by`` "rule:<id>"); None: a tool-wide rule.
    approved_scope: dict[str, Any] | None = None
    answers: list[Any] = Field(default_factory=list)
    started_at: float | None = None
    finished_at: float | None = None
    did: str = ""  # what it did in a person's words ("restarted payments"), given to the result's writer

    @property
    def digest(self) -> str:
        return params_digest(self.tool, self.params)
