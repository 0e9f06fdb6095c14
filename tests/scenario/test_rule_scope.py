"""Always allow is scoped to the call, in Slack over signed HTTP: the button names the target, the rule covers
only it, ``/tandem rules`` lists the scope and widens a rule to every target only for who may."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from blocks import ids
from tests.scenario.harness import OPS, Env, button_value, gate_of, policy_file, running, text_of

APPROVERS = """
[approvers]
exec = ["U0BOB"]

[anchors]
merge_gate = false
"""
"""Bob may approve exec steps; each risky step asks at its own gate (bob's plan approval would approve the
restart with the plan, and the gate with its "always allow" button would never be asked)."""


def _told(env: Env, user: str) -> str:
    """The text of the last ephemeral ``user`` saw ("" before any)."""
    told: list[Any] = env.ws.state.ephemerals_for(user)
    return text_of(told[-1]) if told else ""


def _last_ephemeral(env: Env, user: str) -> Any:
    return env.ws.state.ephemerals_for(user)[-1]


async def _rules_listing(env: Env, user: str, name: str) -> Any:
    count = len(env.ws.state.ephemerals_for(user))
    await env.ws.slash_command(name, OPS, "rules")
    await env.wait(lambda: len(env.ws.state.ephemerals_for(user)) > count)
    return _last_ephemeral(env, user)


async def test_rule_given_on_payments_asks_for_checkout_and_widening_is_for_approvers_only(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, APPROVERS)) as env:
        card, gate = await gate_of(env, "restart payments and check errors after", approver="bob")
        assert "Always allow restart_service for payments here" in text_of(gate)
        await env.click("bob", gate, ids.APPROVE_ALWAYS)
        set_line = "From now on `restart_service` for payments runs without asking in this channel (set by <@U0BOB>)."
        await env.wait(lambda: any(set_line in text_of(m) for m in env.thread(card)))
        (rule,) = await env.bot.deps.store.rules(OPS)
        assert rule.target == {"service": "payments"}

        # the case: restart_service(service=checkout) is not covered by the payments rule; it asks
        _, checkout_gate = await gate_of(env, "restart checkout", approver="bob")
        assert "restart_service" in text_of(checkout_gate) and "checkout" in text_of(checkout_gate)
        assert "Always allow restart_service for checkout here" in text_of(checkout_gate)
        await env.click("bob", checkout_gate, ids.CANCEL)

        # the listing says what the rule covers; an outsider may not widen it
        listing = await _rules_listing(env, "U0CAROL", "carol")
        assert "`restart_service` for payments runs without asking" in text_of(listing)
        widen = button_value(listing, ids.WIDEN_RULE)
        await env.ws.click("carol", OPS, listing.ts, ids.WIDEN_RULE, widen)
        await env.wait(lambda: "can widen this rule" in _told(env, "U0CAROL"))
        assert "Only <@U0BOB> (who set it) or an approver" in _told(env, "U0CAROL")
        assert (await env.bot.deps.store.rules(OPS))[0].target == {"service": "payments"}, "nothing changed"

        # who set it widens it: every target from now on, and the listing says so
        mine = await _rules_listing(env, "U0BOB", "bob")
        await env.ws.click("bob", OPS, mine.ts, ids.WIDEN_RULE, button_value(mine, ids.WIDEN_RULE))
        await env.wait(lambda: "for every target (widened by <@U0BOB>)" in _told(env, "U0BOB"))
        (wide,) = await env.bot.deps.store.rules(OPS)
        assert wide.tool_wide and wide.widened_by == "U0BOB"
        listing = await _rules_listing(env, "U0CAROL", "carol")
        assert "`restart_service` for every target (tool-wide) runs without asking" in text_of(listing)
        assert "widened to every target by <@U0BOB>" in text_of(listing)
        assert ids.WIDEN_RULE not in str(listing.blocks)

        card = await env.start("restart checkout")
        plan = await env.next_review(card)
        await env.click("bob", plan, ids.APPROVE)
        result = await env.next_review(card, after=plan)
        assert "needs approval" not in text_of(result) and "Restarted checkout" in text_of(result)
