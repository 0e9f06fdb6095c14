"""Always allow scoped to the call in Feishu: the card's button names the target, ``rules`` lists each rule's
scope, and ``rules widen ID`` makes one cover every target only for who may."""

from __future__ import annotations

import json
from pathlib import Path

from tests.scenario.feishu_env import OPS, FEnv, running_feishu, text
from tests.scenario.harness import policy_file

APPROVERS = '[approvers]\nexec = ["ou_bob"]\n\n[anchors]\nmerge_gate = false\n'
"""Bob may approve exec steps; the restart asks at its own gate, where "always allow" is offered (bob's plan
approval would otherwise approve the restart with the plan)."""


def _told(env: FEnv, open_id: str) -> list[str]:
    return [json.dumps(card, ensure_ascii=False) for _, who, card in env.fake.ephemerals if who == open_id]


async def _say(env: FEnv, name: str, words: str, expect: str) -> str:
    """``name`` says ``words`` to the bot; the private answer that contains ``expect``."""
    open_id = f"ou_{name}"
    before = len(_told(env, open_id))
    await env.fake.say(name, OPS, words)
    await env.wait(lambda: any(expect in t for t in _told(env, open_id)[before:]))
    return next(t for t in _told(env, open_id)[before:] if expect in t)


async def test_feishu_rule_on_payments_is_listed_with_its_scope_and_widened_only_by_who_may(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, config=policy_file(tmp_path, APPROVERS)) as env:
        fake = env.fake
        _, review = await env.exec_gate("restart payments and check errors after", approver="bob")
        assert "Always allow restart_service for payments here" in text(review)
        answer = await fake.click("bob", review.message_id, "approve_always")
        assert answer.body["toast"]["type"] == "success"
        (rule,) = await env.bot.deps.store.rules(OPS)
        assert rule.target == {"service": "payments"}

        listing = await _say(env, "carol", "rules", "restart_service")
        assert "`restart_service` for payments runs without asking" in listing
        assert f"rules widen {rule.id}" in listing
        refused = await _say(env, "carol", f"rules widen {rule.id}", "Nothing changed")
        assert "can widen this rule" in refused
        assert (await env.bot.deps.store.rules(OPS))[0].target == {"service": "payments"}

        widened = await _say(env, "bob", f"rules widen {rule.id}", "every target")
        assert "runs without asking in this channel for every target" in widened
        (wide,) = await env.bot.deps.store.rules(OPS)
        assert wide.tool_wide and wide.widened_by == "ou_bob"
        listing = await _say(env, "carol", "rules", "tool-wide")
        assert "`restart_service` for every target (tool-wide) runs without asking" in listing
