"""``/tandem rules``: the channel's "always allow" rules, each with a Revoke button."""

from __future__ import annotations

from collections.abc import Sequence

from agent.models import Rule
from blocks import ids
from blocks.text import Blocks, button, context, escape, mention, section, when

SHOWN = 20


def rules_blocks(rules: Sequence[Rule]) -> Blocks:
    if not rules:
        return [section("*Always-allow rules in this channel*\n_None: every risky step asks first._")]
    blocks: Blocks = [section(f"*Always-allow rules in this channel* · {len(rules)}")]
    for rule in rules[:SHOWN]:
        text = (
            f"`{escape(rule.tool)}` runs without asking · set by {mention(rule.created_by)} · {when(rule.created_at)}"
        )
        block = section(text)
        block["accessory"] = button("Revoke", ids.REVOKE_RULE, rule.id, style="danger").to_dict()
        blocks.append(block)
    if len(rules) > SHOWN:
        blocks.append(context(f"… and {len(rules) - SHOWN} more"))
    blocks.append(context("Deploys always ask; rules never cover them. Each skipped approval is still logged."))
    return blocks
