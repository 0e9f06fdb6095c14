"""``/tandem rules``: each rule says what it covers; a scoped rule can be widened behind a confirm dialog."""

from __future__ import annotations

import json

from agent.models import Rule
from blocks import ids
from blocks.rules import rules_blocks
from tests.blocks.states import assert_valid_message

T = 1_796_000_000.0


def _rule(rule_id: str, **fields: object) -> Rule:
    base: dict[str, object] = {"id": rule_id, "channel": "C0OPS", "tool": "restart_service"}
    return Rule.model_validate(base | {"created_by": "U0BOB", "created_at": T} | fields)


def test_rules_listing_says_what_each_rule_covers_and_offers_widen_only_to_scoped_ones() -> None:
    rules = [
        _rule("scoped", target={"service": "payments"}),
        _rule("old"),
        _rule("wide", widened_by="U0DAVE", widened_at=T + 60),
        _rule("policy:1", created_by="", target={"service": "search"}),
    ]
    blocks = rules_blocks(rules)
    assert_valid_message(blocks)
    texts = [json.dumps(b) for b in blocks]
    assert "`restart_service` for payments runs without asking" in texts[1]
    assert ids.WIDEN_RULE in texts[2] and "Widen this rule?" in texts[2] and "Today it covers" in texts[2]
    assert "for every target (tool-wide)" in texts[3] and "made before rules named their targets" in texts[3]
    assert "widened to every target by <@U0DAVE>" in texts[4] and ids.WIDEN_RULE not in texts[4]
    assert "set in the policy file" in texts[5] and ids.REVOKE_RULE not in texts[5]
    assert sum(ids.WIDEN_RULE in t for t in texts) == 1
