"""Standing rules as rows, the same on SQLite and PostgreSQL.

A rule's scope is its ``target`` column: the JSON of the target values it covers, or NULL for a
tool-wide rule. Rules stored before scopes existed have NULL there, so they load (and apply) tool-wide.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agent.models import Rule

__all__ = ["RULE_COLUMNS", "RULE_INSERT", "RULE_SQL", "rule_of", "rule_values"]

RULE_COLUMNS = ("id", "channel", "tool", "created_by", "created_at", "target", "widened_by", "widened_at")
RULE_SQL = ", ".join(RULE_COLUMNS)
RULE_INSERT = f"INSERT INTO rules ({RULE_SQL}) VALUES ({', '.join('?' for _ in RULE_COLUMNS)})"


def rule_of(row: Sequence[Any]) -> Rule:
    data = dict(zip(RULE_COLUMNS, row, strict=True))
    data["target"] = None if data["target"] is None else json.loads(data["target"])
    return Rule.model_validate(data)


def rule_values(rule: Rule) -> list[Any]:
    target = None if rule.target is None else json.dumps(rule.target, sort_keys=True, separators=(",", ":"))
    return [
        rule.id,
        rule.channel,
        rule.tool,
        rule.created_by,
        rule.created_at,
        target,
        rule.widened_by,
        rule.widened_at,
    ]
