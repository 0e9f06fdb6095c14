"""Standing rules people set: "always allow <tool> for <target> in this channel", and the history that earns the offer.

What a rule covers is its **scope**: the tool and the call's target values (:func:`call_scope`).
``restart_service`` approved with always allow on ``service=payments`` covers later calls of
``restart_service`` for payments, never ``service=checkout``. A rule with no scope (``target`` None)
is tool-wide: rules stored before scopes existed, and rules a person widened on purpose.
"""

from __future__ import annotations

import json
from typing import Any

from agent.models.base import Model
from agent.models.steps import target_of

SCOPE_LABEL_MAX = 60
POLICY_RULE = "policy:"
"""The id prefix of a rule the policy file sets (``[rules] always_allow``; ``policy:1`` is its first entry)."""


def call_scope(params: dict[str, Any]) -> dict[str, Any]:
    """What an always-allow rule made on a call covers: the call's target values (``{"service": "payments"}``,
    quantities and prose left out), or, for a call with no target values, exactly its parameters."""
    return target_of(params) or dict(params)


def scope_label(scope: dict[str, Any] | None) -> str:
    """A scope in a few words: ``payments``; ``payments, eu-1``; ``nodes=5``; "" when tool-wide or empty."""
    if not scope:
        return ""
    named = target_of(scope) == scope
    words = ", ".join(
        str(v) if named else f"{k}={json.dumps(v, ensure_ascii=False, default=str)}" for k, v in scope.items()
    )
    return words if len(words) <= SCOPE_LABEL_MAX else words[: SCOPE_LABEL_MAX - 1] + "…"


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


class Rule(Model):
    """ "Always allow <tool> for <target> in this channel": later calls in its scope skip the approval gate
    (still logged). ``target`` None: every call of the tool (tool-wide)."""

    id: str
    channel: str
    tool: str
    created_by: str
    created_at: float
    target: dict[str, Any] | None = None
    widened_by: str | None = None  # who made a scoped rule tool-wide, and when (kept on the rule as its audit)
    widened_at: float | None = None

    @property
    def tool_wide(self) -> bool:
        return self.target is None

    @property
    def from_policy(self) -> bool:
        """Set in the policy file: changed there, never revoked, widened or suspended from chat."""
        return self.id.startswith(POLICY_RULE)

    @property
    def label(self) -> str:
        """``payments`` for a scoped rule, "" for a tool-wide one."""
        return scope_label(self.target)

    def covers(self, tool: str, params: dict[str, Any]) -> bool:
        """True when a call of ``tool`` with ``params`` is in this rule's scope (the channel is the caller's part)."""
        return tool == self.tool and (self.target is None or call_scope(params) == self.target)


def param_shape(tool: str, params: dict[str, Any]) -> str:
    """A call's shape: its tool and parameter names, with the values of its scope (:func:`call_scope`) and
    the others left out: ``scale_service(replicas=…, service=payments)``. Approvals in a row of one shape
    earn the offer of an always-allow rule of that scope."""
    scope = call_scope(params)
    return f"{tool}({', '.join(f'{k}={scope[k]}' if k in scope else f'{k}=…' for k in sorted(params))})"


class GateDecision(Model):
    """One person's decision at a gate of a tool with one shape in a channel, as the audit trail keeps it."""

    run_id: str
    by: str
    at: float
    approved: bool  # approved as asked; False: a correction, a cancel, or a rule of the tool suspended


class AlwaysOffer(Model):
    """The gate offers "always allow": the same call shape was approved unchanged this many times in a row."""

    shape: str
    approvals: list[GateDecision]
    tool: str = ""  # the rule the offer makes: this tool, for ``scope`` ("" in offers made before scopes)
    scope: str = ""


class RuleSuspension(Model):
    """A rule stops applying (kept, with why): a step it let run was corrected or rejected."""

    rule_id: str
    tool: str
    by: str
    at: float
    reason: str
    # The shape of the call it let run (``restart_service(service=payments)``) when the rule was scoped:
    # only that scope's streak starts over. None (a tool-wide rule, or before scopes): every streak of the tool.
    shape: str | None = None
