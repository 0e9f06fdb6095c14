"""A gate's history in its channel, read from the audit trail: the "N approvals in a row" behind "always allow".

Nothing is counted on the side. The audit line of a person's decision at a risky step's gate names
the call's shape with its target values (``gate``: ``restart_service(service=payments)``, see
``agent/runtime/audit.py``), so approvals for payments count towards a payments rule and never
checkout's; a suspended rule leaves a ``suspend_rule`` line naming its tool, and the shape of the
call it let run when it was scoped (a tool-wide rule's suspension ends every streak of the tool).
The latest of these lines in the channel, newest first, are the history
:meth:`agent.policy.SafetyPolicy.always_offer` reads.
The SQL is shared by SQLite and PostgreSQL through :class:`storage.metrics.Dialect`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent.models import GateDecision
from storage.metrics import Dialect

__all__ = ["gate_decision", "gate_history_args", "gate_history_sql"]


def gate_history_sql(d: Dialect) -> str:
    """Parameters: :func:`gate_history_args`. Each half walks its partial index (``events_gate``,
    ``events_suspension``) newest first and stops after ``limit`` lines of the channel."""
    line = "e.id, e.run_id, e.kind, e.actor, e.at"
    shape = d.field("e.payload", "suspension.shape")
    runs = "FROM events e JOIN runs r ON r.id = e.run_id"
    newest = "ORDER BY e.at DESC, e.id DESC LIMIT ?"
    decided = (
        f"SELECT {line}, {d.field('e.payload', 'decision.kind')} AS decision, NULL AS suspended_by {runs}"
        f" WHERE e.kind = 'decided' AND {d.field('e.payload', 'gate')} = ? AND r.channel = ? {newest}"
    )
    suspended = (
        f"SELECT {line}, NULL AS decision, {d.field('e.payload', 'suspension.by')} AS suspended_by {runs}"
        f" WHERE e.kind = 'suspend_rule' AND {d.field('e.payload', 'suspension.tool')} = ?"
        f" AND ({shape} IS NULL OR {shape} = ?) AND r.channel = ? {newest}"
    )
    return (
        "SELECT run_id, kind, actor, at, decision, suspended_by FROM"
        f" (SELECT * FROM ({decided}) d UNION ALL SELECT * FROM ({suspended}) s) x"
        " ORDER BY at DESC, id DESC LIMIT ?"
    )


def gate_history_args(channel: str, shape: str, tool: str, limit: int) -> list[Any]:
    return [shape, channel, limit, tool, shape, channel, limit, limit]


def gate_decision(row: Sequence[Any]) -> GateDecision:
    run_id, kind, actor, at, decision, suspended_by = row
    approved = kind == "decided" and decision == "approve"
    by = str(suspended_by) if kind == "suspend_rule" and suspended_by else str(actor)
    return GateDecision(run_id=str(run_id), by=by, at=float(at), approved=approved)
