"""The Request changes button and form say what a correction does at the review they belong to, under one name:
the button is called what the form it opens is called; a step that has not run is changed, not "run again"."""

from __future__ import annotations

import json
from pathlib import Path

from blocks import ids
from tests.scenario.feishu_env import running_feishu
from tests.scenario.feishu_env import text as feishu_text
from tests.scenario.harness import OPS, THREE_ANCHORS, Env, buttons_of, policy_file, running, text_of
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


async def test_slack_presentation_wish_at_a_step_outcome_is_noted_not_rejected(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, THREE_ANCHORS)) as env:
        card = await env.start(TASK)
        review = await env.next_review(card)
        while "outcome" not in text_of(review).lower():  # the plan, then the restart's gate
            await env.click("alice", review, ids.APPROVE)
            review = await env.next_review(card, after=review)
        await env.click("alice", review, ids.REJECT)
        await env.wait(lambda: env.ws.state.open_modals("U0ALICE"))
        modal = env.ws.state.open_modals("U0ALICE")[-1]
        values = {ids.INTENT_BLOCK: "refine_output", ids.FEEDBACK_BLOCK: "show the result as a table"}
        await env.ws.submit_view("alice", modal.id, values)
        marked = lambda: "show the result as a table" in text_of(env.ws.state.message(OPS, review.ts))  # noqa: E731
        await env.wait(marked)
        text = text_of(env.ws.state.message(OPS, review.ts))
        assert "📝 Noted for the result by <@U0ALICE>" in text
        assert "❌" not in text and "Changes requested" not in text


async def test_feishu_presentation_wish_at_a_step_outcome_is_noted_not_rejected(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, config=policy_file(tmp_path, THREE_ANCHORS)) as env:
        root, gate = await env.exec_gate(TASK)
        await env.fake.click("alice", gate.message_id, "approve")
        review = await env.next_review(root, after=gate)
        form = {"feedback": "show the result as a table", "intent": "refine_output"}
        await env.fake.click("alice", review.message_id, "request_changes", form)
        await env.wait(lambda: "show the result as a table" in feishu_text(review))
        assert "📝 Noted for the result by" in feishu_text(review)
        assert "❌" not in feishu_text(review)
