"""Feishu: the plan card says what approving it does to the restart, bob's click approves both, and a
reply in the chat never approves the exec step with the plan."""

from __future__ import annotations

from pathlib import Path

from tests.scenario.feishu_env import OPS, running_feishu, text
from tests.scenario.harness import policy_file

POLICY = '[approvers]\nexec = ["ou_bob"]\n'
TASK = "restart payments and check errors after"


async def test_feishu_plan_approved_by_bob_runs_the_restart_without_its_gate(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, config=policy_file(tmp_path, POLICY)) as env:
        root, plan = await env.plan_of(TASK)
        assert "this plan also approves step 1 `restart_service` `service=payments`" in text(plan)
        assert "step 1 still asks <at id=ou_bob></at> right before it runs" in text(plan)
        await env.fake.click("bob", plan.message_id, "approve")
        result = await env.next_review(root, after=plan)
        # its evidence (the steps since the plan review) shows what the restart did
        assert "**Since the last review · 2 steps ran**" in text(result)
        assert "✅ **Step 1** `restart_service` `service=payments`\n```\nRestarted payments" in text(result)
        said = "\n".join(text(m) for m in env.fake.thread(root.message_id))
        assert "approved step 1 (`restart_service`) with the plan" in said
        run_id = (await env.bot.deps.store.list_runs())[0].id
        state, _ = await env.bot.deps.store.load(run_id)
        assert state.step(1).approved_by == "ou_bob" and state.pending and state.pending.anchor == "before_result"


async def test_feishu_reply_from_bob_on_the_plan_leaves_the_restart_to_its_gate(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, config=policy_file(tmp_path, POLICY)) as env:
        root, plan = await env.plan_of(TASK)
        await env.fake.say("bob", OPS, "yes", root_id=root.message_id, mention_bot=False)
        gate = await env.next_review(root, after=plan)
        assert "exec" in text(gate)
        run_id = (await env.bot.deps.store.list_runs())[0].id
        state, _ = await env.bot.deps.store.load(run_id)
        assert state.pending and state.pending.anchor == "before_risky_step" and state.step(1).approved_by is None
