"""Standing rules people set: "always allow <tool> in this channel", and the history that earns the offer."""

from __future__ import annotations

from typing import Any

from agent.models.base import _Model


class Rule(_Model):
    """ "Always allow <tool> in this channel": later calls skip the approval gate (still logged)."""

    id: str
    channel: str
    tool: str
    created_by: str
    created_at: float


def param_shape(tool: str, params: dict[str, Any]) -> str:
    """A call's shape: its tool and parameter names, values left out: ``restart_service(service=…)``."""
    return f"{tool}({', '.join(f'{k}=…' for k in sorted(params))})"


class GateDecision(_Model):
    """One person's decision at a gate of a tool with one shape in a channel, as the audit trail keeps it."""

    run_id: str
    by: str
    at: float
    approved: bool  # approved as asked; False: a correction, a cancel, or a rule of the tool suspended


class AlwaysOffer(_Model):
    """The gate offers "always allow": the same call shape was approved unchanged this many times in a row."""

    shape: str
    approvals: list[GateDecision]


class RuleSuspension(_Model):
    """A rule stops applying (kept, with why): a step it let run was corrected or rejected."""

    rule_id: str
    tool: str
    by: str
    at: float
    reason: str
