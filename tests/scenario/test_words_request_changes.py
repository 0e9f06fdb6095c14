"""The Request changes button and form say what a correction does at the review they belong to, under one name:
the button is called what the form it opens is called; a step that has not run is changed, not "run again"."""

from __future__ import annotations

import json
from pathlib import Path

from blocks import ids
from tests.scenario.feishu_env import running_feishu
from tests.scenario.harness import THREE_ANCHORS, Env, buttons_of, policy_file, running
from workspace.models import Message

TASK = "restart payments and check errors after"


async def _form_of(env: Env, review: Message) -> tuple[str, str, str]:
    """The clicked button's label, then the title and the text of the form it opened."""
    label = next(b["text"]["text"] for b in buttons_of(review) if b.get("action_id") == ids.REJECT)
    await env.click("alice", review, ids.REJECT)
    await env.wait(lambda: env.ws.state.open_modals("U0ALICE"))
    modal = env.ws.state.open_modals("U0ALICE")[-1]
    return label, modal.spec["title"]["text"], json.dumps(modal.spec, ensure_ascii=False)


async def test_slack_request_changes_at_plan_and_gate_says_the_step_changes_before_it_runs(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, THREE_ANCHORS)) as env:
        card = await env.start(TASK)
        plan = await env.next_review(card)
        label, title, text = await _form_of(env, plan)
        assert label == title == "Request changes"
        assert "runs it again" not in text
        assert "changes the step's values and shows you the plan again" in text

        await env.ws.close_view("alice", env.ws.state.open_modals("U0ALICE")[-1].id)
        await env.click("alice", plan, ids.APPROVE)
        gate = await env.next_review(card, after=plan)
        label, title, text = await _form_of(env, gate)
        assert label == title == "Request changes"
        assert "runs it again" not in text
        assert "asks you again before it runs" in text


async def test_feishu_request_changes_at_a_plan_offers_to_change_a_step_not_retry_it(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        _, plan = await env.plan_of(TASK)
        text = json.dumps(plan.card, ensure_ascii=False)
        assert "Change a step's values (before it runs)" in text
        assert "Retry the step" not in text
