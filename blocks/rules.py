"""``/tandem rules``: the channel's "always allow" rules, each with Revoke; a scoped one also with "Widen"."""

from __future__ import annotations

from collections.abc import Sequence

from slack_sdk.models.blocks import ButtonElement, ConfirmObject

from agent.messages import rule_what, scoped
from agent.models import Rule
from blocks import ids
from blocks.text import Block, Blocks, actions, button, context, escape, mention, section, when

SHOWN = 20


def rules_blocks(rules: Sequence[Rule]) -> Blocks:
    if not rules:
        return [section("*Always-allow rules in this channel*\n_None: every risky step asks first._")]
    blocks: Blocks = [section(f"*Always-allow rules in this channel* · {len(rules)}")]
    for rule in rules[:SHOWN]:
        blocks += _rule_blocks(rule)
    if len(rules) > SHOWN:
        blocks.append(context(f"… and {len(rules) - SHOWN} more"))
    blocks.append(
        context(
            "A rule covers its tool for the targets it was given on; widening it to every target is a choice of "
            "its own. Deploys always ask; rules never cover them. Each skipped approval is still logged."
        )
    )
    return blocks


def _rule_blocks(rule: Rule) -> list[Block]:
    if rule.from_policy:
        return [
            section(f"{escape(rule_what(rule))} runs without asking · set in the policy file ([rules] always_allow)")
        ]
    text = (
        f"{escape(rule_what(rule))} runs without asking · set by {mention(rule.created_by)} · {when(rule.created_at)}"
    )
    if rule.widened_by is not None and rule.widened_at is not None:
        text += f" · widened to every target by {mention(rule.widened_by)} · {when(rule.widened_at)}"
    elif rule.tool_wide:
        text += " · made before rules named their targets"
    revoke = button("Revoke", ids.REVOKE_RULE, rule.id, style="danger")
    if rule.tool_wide:
        block = section(text)
        block["accessory"] = revoke.to_dict()
        return [block]
    return [section(text), actions(widen_button(rule), revoke)]


def widen_button(rule: Rule) -> ButtonElement:
    """ "Widen to every target", behind a confirm dialog that says what it will cover."""
    confirm = ConfirmObject(
        title="Widen this rule?",
        text=escape(
            f"Today it covers {scoped(rule.tool, rule.label)}. Widened, `{rule.tool}` runs without asking "
            "in this channel for every target."
        ),
        confirm="Widen",
        deny="Keep it as it is",
    )
    return ButtonElement(text="Widen to every target", action_id=ids.WIDEN_RULE, value=rule.id, confirm=confirm)
