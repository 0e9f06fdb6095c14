"""A gate's history in its channel, read from the audit trail: the "N approvals in a row" behind "always allow".

Nothing is counted on the side. The audit line of a person's decision at a risky step's gate names
the call's shape (``gate``: ``restart_service(service=…)``, see ``agent/runtime/audit.py``), and a
suspended rule leaves a ``suspend_rule`` line naming its tool; the latest of these lines in the
channel, newest first, are the history :meth:`agent.policy.SafetyPolicy.always_offer` reads.
The SQL is shared by SQLite and PostgreSQL through :class:`storage.metrics.Dialect`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent.models import GateDecision
from storage.metrics import Dialect

__all__ = ["gate_history_sql", "gate_decision"]


def gate_history_sql(d: Dialect) -> str:
    """Parameters: channel, shape, tool, limit (``?`` placeholders)."""
    return (
        f"SELECT e.run_id, e.kind, e.actor, e.at, {d.field('e.payload', 'decision.kind')},"
        f" {d.field('e.payload', 'suspension.by')}"
        " FROM events e JOIN runs r ON r.id = e.run_id"
        f" WHERE r.channel = ? AND ((e.kind = 'decided' AND {d.field('e.payload', 'gate')} = ?)"
        f" OR (e.kind = 'suspend_rule' AND {d.field('e.payload', 'suspension.tool')} = ?))"
        " ORDER BY e.at DESC, e.id DESC LIMIT ?"
    )


def gate_decision(row: Sequence[Any]) -> GateDecision:
    run_id, kind, actor, at, decision, suspended_by = row
    approved = kind == "decided" and decision == "approve"
    by = str(suspended_by) if kind == "suspend_rule" and suspended_by else str(actor)
    return GateDecision(run_id=str(run_id), by=by, at=float(at), approved=approved)
