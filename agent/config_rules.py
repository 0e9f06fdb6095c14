"""Always-allow rules set in the policy file (``[rules] always_allow``), beside the ones people make in chat.

Each entry names a channel (a place id of a registered platform: a channel, a chat), a tool, and what
it covers: its target values (``service = "payments"``, the same target values a rule made in chat
names, see :func:`agent.models.target_of`), or, as an explicit choice, ``every_target = true``::

    [rules]
    always_allow = [
      { channel = "<channel id>", tool = "restart_service", service = "payments" },
      { channel = "<channel id>", tool = "drop_cache", every_target = true },
    ]

They are never revoked, widened or suspended from chat (edit the file); deploys and tools that need
several approvals are never covered, whatever the file says (``SafetyPolicy.rule_applies``), and a
deploy tool named here stops the start-up (:func:`check_tools`).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

from agent.errors import PolicyError
from agent.gates import GateRules
from agent.models import Rule, platforms, target_of
from agent.models.rules import POLICY_RULE
from agent.tools import ToolRegistry


class AlwaysAllow(BaseModel):
    """One ``[rules] always_allow`` entry: ``channel``, ``tool``, then its target values or ``every_target``."""

    model_config = ConfigDict(extra="allow", frozen=True)

    channel: str
    tool: str
    every_target: bool = False

    @property
    def target(self) -> dict[str, Any] | None:
        """The target values it covers; None: every target (tool-wide)."""
        return None if self.every_target else dict(self.model_extra or {})

    @model_validator(mode="after")
    def _scope(self) -> AlwaysAllow:
        if not platforms.is_place(self.channel):
            raise ValueError(
                f"channel {json.dumps(self.channel)} is not a channel id (one of {platforms.place_hint()})"
            )
        targets = dict(self.model_extra or {})
        for key, value in targets.items():
            if not isinstance(value, str) or not target_of({key: value}):
                raise ValueError(
                    f"{key} = {json.dumps(value)} is not a target value: give one word of text, e.g. {key} = "
                    '"payments" (quantities and prose are never part of a rule)'
                )
        if self.every_target and targets:
            raise ValueError(f"every_target = true covers every target: leave out {', '.join(sorted(targets))}")
        if not self.every_target and not targets:
            raise ValueError(
                f'name what {self.tool} may act on unasked (e.g. service = "payments"), '
                "or set every_target = true to allow it for every target"
            )
        return self


def configured_rules(entries: list[AlwaysAllow], channel: str) -> list[Rule]:
    """The policy file's rules of ``channel``, as rules (``policy:N`` ids, nobody's)."""
    return [
        Rule(id=f"{POLICY_RULE}{n}", channel=e.channel, tool=e.tool, created_by="", created_at=0.0, target=e.target)
        for n, e in enumerate(entries, start=1)
        if e.channel == channel
    ]


def check_tools(entries: list[AlwaysAllow], tools: ToolRegistry) -> None:
    """Refuse (one line naming the key) an entry whose tool is unknown or deploys."""
    for n, entry in enumerate(entries):
        key = f"rules.always_allow.{n}.tool"
        if entry.tool not in tools:
            down = "".join(f" {outage}" for outage in tools.outages())  # an MCP server not reachable at start
            raise PolicyError(
                f"Invalid policy: {key}: no tool {json.dumps(entry.tool)} (known: {', '.join(tools.names)}).{down}"
            )
        if GateRules.always_asks(tools.get(entry.tool).risk):  # the rule SafetyPolicy applies
            raise PolicyError(
                f"Invalid policy: {key}: {entry.tool} deploys; deploys always ask and cannot be always-allowed"
            )
