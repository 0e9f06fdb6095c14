"""A plan's approval that also approves its risky steps, in Slack over signed HTTP: who it is for, what the
plan review says, and the paths (a thread reply) that never merge an exec or deploy gate."""

from __future__ import annotations

from pathlib import Path

from blocks import ids
from tests.scenario.harness import Env, policy_file, running, text_of
from workspace.models import Message

DEMO = """
[approvers]
exec = ["U0BOB"]
deploy = ["U0BOB"]
"""
TASK = "restart payments and check errors after"


async def _pending(env: Env) -> str | None:
    state, _ = await env.bot.deps.store.load((await env.bot.deps.store.list_runs())[0].id)
    return state.pending.anchor if state.pending else None


def _said(env: Env, card: Message) -> str:
    return "\n".join(text_of(m) for m in env.thread(card))


async def test_plan_approved_by_bob_runs_the_restart_without_its_gate_and_says_so(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, DEMO)) as env:
        card = await env.start(TASK)
        plan = await env.next_review(card)
        assert (
            "Approved by <@U0BOB> (who may approve exec steps), this plan also approves step 1 `restart_service` "
            "`service=payments`; approved by anyone else, step 1 still asks <@U0BOB> right before it runs."
        ) in text_of(plan)
        await env.click("bob", plan, ids.APPROVE)
        result = await env.next_review(card, after=plan)
        assert "Result ready for review" in text_of(result)
        # its evidence (the steps since the plan review) shows what the restart did
        assert "Since the last review* · 2 steps ran" in text_of(result)
        assert "✅ *Step 1* `restart_service` `service=payments`\n```Restarted payments" in text_of(result)
        assert "<@U0BOB> approved step 1 (`restart_service`) with the plan" in _said(env, card)
        assert "needs approval" not in _said(env, card)
        run_id = (await env.bot.deps.store.list_runs())[0].id
        decided = [e for e in await env.bot.deps.store.events(run_id) if e.kind == "decided"]
        assert decided[0].payload["with_plan"] == [
            {"step": 1, "tool": "restart_service", "shape": "restart_service(service=payments)"}
        ]


async def test_plan_approved_by_alice_leaves_the_restart_waiting_for_bob(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, DEMO)) as env:
        card = await env.start(TASK)
        plan = await env.next_review(card)
        await env.click("alice", plan, ids.APPROVE)
        gate = await env.next_review(card, after=plan)
        assert "needs approval" in text_of(gate) and "Waiting on <@U0BOB>" in text_of(gate)
        assert "with the plan" not in _said(env, card)


async def test_thread_yes_from_bob_on_the_plan_leaves_the_exec_gate_to_its_button(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, DEMO)) as env:
        card = await env.start(TASK)
        plan = await env.next_review(card)
        await env.ws.reply_in_thread("bob", "C0OPS", card.ts, "yes")
        gate = await env.next_review(card, after=plan)
        assert "needs approval" in text_of(gate)
        assert await _pending(env) == "before_risky_step"
        assert "with the plan" not in _said(env, card)


async def test_deploy_under_a_quorum_is_never_approved_with_the_plan(tmp_path: Path) -> None:
    quorum = DEMO.replace('deploy = ["U0BOB"]', 'deploy = ["U0BOB", "U0CAROL"]') + "[quorum]\ndeploy = 2\n"
    async with running(tmp_path, config=policy_file(tmp_path, quorum)) as env:
        card = await env.start("deploy checkout 2.5.0")
        plan = await env.next_review(card)
        assert "still asks <@U0BOB> or <@U0CAROL> right before it runs (it needs 2 approvals)" in text_of(plan)
        await env.click("bob", plan, ids.APPROVE)
        gate = await env.next_review(card, after=plan)
        assert "needs approval" in text_of(gate)
        await env.click("bob", gate, ids.APPROVE)
        await env.wait(lambda: "1 more approval needed" in _said(env, card))
        assert await _pending(env) == "before_risky_step"
        await env.click("carol", gate, ids.APPROVE)
        await env.wait(lambda: "Deployed checkout" in _said(env, card))
