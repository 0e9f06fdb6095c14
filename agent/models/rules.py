"""Standing rules people set: "always allow <tool> in this channel"."""

from __future__ import annotations

from agent.models.base import _Model


class Rule(_Model):
    """ "Always allow <tool> in this channel": later calls skip the approval gate (still logged)."""

    id: str
    channel: str
    tool: str
    created_by: str
    created_at: float
