"""A correction of a step's values says what it changed, old → new, from the step before and after; "Read as"
never quotes a guessed value (it quoted the old one for "warning instead of error"). Slack, Feishu, terminal."""

from __future__ import annotations

from pathlib import Path

from tests.scenario.feishu_env import running_feishu, text
from tests.scenario.harness import OPS, THREE_ANCHORS, policy_file, running, text_of

TASK = "restart payments and check errors after"


async def test_slack_value_correction_at_a_plan_says_old_and_new_value(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card = await env.start(TASK)
        plan = await env.next_review(card)
        assert "error" in text_of(plan)
        await env.ws.reply_in_thread("alice", OPS, card.ts, "use level warning instead of error")
        again = await env.next_review(card, after=plan)
        read_as = next(m for m in env.thread(card) if "Read as" in text_of(m))
        assert "Read as: *retry step 2*\n" in text_of(read_as), "no value after it, least of all the old one"
        assert "Step 2 changed: `read_logs` level error → warning." in text_of(again)


async def test_feishu_value_correction_at_a_gate_says_old_and_new_value_in_the_thread(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, config=policy_file(tmp_path, THREE_ANCHORS)) as env:
        root, gate = await env.exec_gate(TASK)
        await env.fake.say("alice", "oc_ops", "use checkout instead", root_id=root.message_id, mention_bot=False)
        await env.next_review(root, after=gate)
        lines = [text(m) for m in env.bot_thread(root)]
        assert any("Step 1 changed: `restart_service` service payments → checkout." in t for t in lines), (
            "\n---\n".join(lines)
        )
        read_as = next(t for t in lines if "Read as" in t)
        assert "— checkout" not in read_as and "— payments" not in read_as
