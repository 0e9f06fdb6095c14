"""The run card in Feishu comes from the outbox too: a card Feishu keeps refusing stops the run and tells the
requester privately; a card that goes through late starts the thread late, and the run goes on."""

from __future__ import annotations

import json
from pathlib import Path

from agent.models import RunState
from tests.scenario.feishu_env import OPS, FEnv, running_feishu
from workspace.feishu_fake import card_text

TASK = "restart payments and check errors after"
CREATE = "/open-apis/im/v1/messages"
FAST_TICKS = 0.05  # seconds between scheduler ticks: a given-up card is noticed at once


def feishu_down_for(env: FEnv, attempts: int) -> None:
    """Posting a message answers HTTP 500 for the next ``attempts`` outbox attempts."""
    env.fake.failures += [(CREATE, 500, 1500)] * attempts


def told(env: FEnv) -> list[str]:
    return [card_text(card) for _, who, card in env.fake.ephemerals if who == "ou_alice"]


async def only_run(env: FEnv) -> RunState:
    runs = await env.bot.deps.store.list_runs()
    assert len(runs) == 1
    return (await env.bot.deps.store.load(runs[0].id))[0]


async def test_feishu_start_card_keeps_failing_requester_told_and_run_cancelled(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, scheduler_interval=FAST_TICKS) as env:
        env.bot.deps.delivery.retry_scale = 0.001
        env.bot.deps.delivery.max_attempts = 2
        feishu_down_for(env, 2)
        await env.fake.say("alice", OPS, TASK)
        await env.wait(lambda: any("did not start" in t for t in told(env)), within=20)
        notice = next(t for t in told(env) if "did not start" in t)
        assert "could not post its card" in notice and "1500" in notice
        assert env.cards() == [], "no card was posted"
        run = await only_run(env)
        assert run.status == "cancelled" and run.pending is None, "the run waits on nobody"
        await env.idle()
        assert sum("did not start" in t for t in told(env)) == 1, "told once"


async def test_feishu_start_card_recovers_within_retries_card_late_and_run_goes_on(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, scheduler_interval=FAST_TICKS) as env:
        env.bot.deps.delivery.retry_scale = 0.01
        feishu_down_for(env, 1)
        await env.fake.say("alice", OPS, TASK)
        await env.wait(env.cards, within=20)
        root = env.cards()[0]
        assert not env.fake.failures, "the card went out after a failed attempt"
        assert TASK in json.dumps(root.card, ensure_ascii=False)
        plan = await env.next_review(root)
        assert "Plan" in plan.card["header"]["title"]["content"]
        await env.fake.click("alice", plan.message_id, "approve")
        await env.wait(lambda: not env.reviews(root) or env.reviews(root)[-1].message_id != plan.message_id)
        run = await only_run(env)
        assert run.status != "cancelled" and (run.pending is None or run.pending.anchor != "after_plan")
        assert not [t for t in told(env) if "did not start" in t]
