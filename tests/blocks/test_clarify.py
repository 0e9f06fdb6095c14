"""The "not sure what you meant" prompt: one button per reading, never an Approve a reply could not give."""

from __future__ import annotations

from typing import Any

import pytest

from agent.models import Reading
from blocks import ids
from blocks.clarify import clarify


def _intents(blocks: list[dict[str, Any]]) -> list[str]:
    found = []
    for block in blocks:
        for element in block.get("elements") or []:
            if isinstance(element, dict) and str(element.get("action_id", "")).startswith(ids.CLARIFY):
                found.append(str(element["action_id"]).split(".")[-1])
    return found


@pytest.mark.parametrize(
    ("anchor", "can_approve", "expected"),
    [
        ("before_risky_step", True, ["approve", "replan", "retry_step", "cancel"]),
        ("before_risky_step", False, ["replan", "retry_step", "cancel"]),
        ("before_result", True, ["approve", "replan", "retry_step", "refine_output", "cancel"]),
    ],
)
def test_clarify_offers_approve_only_where_a_reply_could_approve(
    anchor: str, can_approve: bool, expected: list[str]
) -> None:
    reading = Reading(intent="approve", confidence=0.3)
    blocks = clarify(reading, "r1", "sure, whatever", anchor, can_approve=can_approve)
    assert _intents(blocks) == expected
