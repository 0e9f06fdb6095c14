"""A tool's question answered from a Feishu card (buttons and a form), an always-allow rule from a gate, a quorum."""

from __future__ import annotations

from pathlib import Path

from agent.asking import Asking, AskRequest, HandoffView
from agent.tokens import mint
from tests.scenario.feishu_env import OPS, running_feishu, text
from tests.scenario.harness import THREE_ANCHORS, policy_file
from workspace.feishu_fake import button_values


async def test_feishu_tool_question_answered_with_a_button_then_a_form(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, tools="tests.agent.handoff_tools") as env:
        fake = env.fake
        await fake.say("alice", OPS, "move service payments")
        await env.wait(env.cards)
        root = env.cards()[0]
        review = await env.next_review(root)
        while "Which region" not in text(review):
            await fake.click("alice", review.message_id, "approve")
            review = await env.next_review(root, after=review)
        # an answer that is not among the options (a forged value) is refused; the question stays open
        forged = {**fake.button(review.message_id, "answer", answer="eu-west-1"), "answer": "mars"}
        refused = await fake.deliver(fake.click_event("alice", review.message_id, forged))
        assert refused.body["toast"]["type"] == "error" and "not one of the options" in refused.body["toast"]["content"]
        assert env.reviews(root)[-1].message_id == review.message_id

        await fake.click("alice", review.message_id, "answer", answer="other")
        typed = await env.next_review(root, after=review)
        assert "Type the region" in text(typed)
        empty = await fake.click("alice", typed.message_id, "answer_text", {"text": "  "})
        assert empty.body["toast"]["type"] == "error"
        await fake.click("alice", typed.message_id, "answer_text", {"text": "ap-south-1"})
        result = await env.next_review(root, after=typed)
        assert "payments moved to ap-south-1" in text(result)


async def test_feishu_always_allow_from_a_gate_skips_it_next_time_in_that_chat(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, config=policy_file(tmp_path, THREE_ANCHORS)) as env:
        fake = env.fake
        _, review = await env.exec_gate("restart payments and check errors after")
        answer = await fake.click("alice", review.message_id, "approve_always")
        assert answer.body["toast"]["type"] == "success"
        rules = await env.bot.deps.store.rules(OPS)
        assert [r.tool for r in rules] == ["restart_service"]
        await fake.say("alice", OPS, "rules")
        await env.wait(lambda: any("restart_service" in str(card) for _, _, card in fake.ephemerals))


QUORUM = '[approvers]\nexec = ["ou_bob", "ou_carol"]\n[quorum]\nexec = 2\n'


async def test_feishu_gate_under_a_quorum_shows_approvals_so_far_then_closes(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, config=policy_file(tmp_path, QUORUM)) as env:
        fake = env.fake
        await fake.say("alice", OPS, "restart payments and check errors after")
        await env.wait(env.cards)
        root = env.cards()[0]
        plan = await env.next_review(root)
        await fake.click("alice", plan.message_id, "approve")
        gate = await env.next_review(root, after=plan)
        assert "approve_always" not in [v["action"] for v in button_values(gate.card)]
        first = await fake.click("bob", gate.message_id, "approve")
        assert first.body["toast"]["type"] == "success"
        assert "Approved so far by <at id=ou_bob></at> · 1 more needed" in text(gate)
        assert "approve" in [v["action"] for v in button_values(gate.card)], "still open for the second approver"
        again = await fake.click("bob", gate.message_id, "approve")
        assert again.body["toast"]["type"] == "error"
        await fake.click("carol", gate.message_id, "approve")
        assert not button_values(gate.card) and "approved by <at id=ou_carol></at>" in text(gate)
        await env.next_review(root, after=gate)


async def test_feishu_department_approver_is_read_from_the_contact_api(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, config=policy_file(tmp_path, '[approvers]\nexec = ["od-ops"]\n')) as env:
        fake = env.fake
        await fake.say("alice", OPS, "restart payments and check errors after")
        await env.wait(env.cards)
        root = env.cards()[0]
        plan = await env.next_review(root)
        await fake.click("alice", plan.message_id, "approve")
        gate = await env.next_review(root, after=plan)
        refused = await fake.click("carol", gate.message_id, "approve")  # in od-eng
        assert refused.body["toast"]["type"] == "error" and "members of @od-ops" in refused.body["toast"]["content"]
        approved = await fake.click("bob", gate.message_id, "approve")  # in od-ops
        assert approved.body["toast"]["type"] == "success" and not button_values(gate.card)


async def test_feishu_number_question_refuses_words_in_its_form_and_takes_the_number(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, tools="tests.agent.handoff_tools") as env:
        fake = env.fake
        await fake.say("alice", OPS, "scale service payments")
        await env.wait(env.cards)
        root = env.cards()[0]
        question = await env.next_review(root)
        assert "How many replicas for payments?" in text(question)

        refused = await fake.click("alice", question.message_id, "answer_text", {"text": "twelve"})
        assert refused.body["toast"]["type"] == "error" and "is not a number" in refused.body["toast"]["content"]
        await fake.click("alice", question.message_id, "answer_text", {"text": "12"})

        await env.wait(lambda: "payments scaled to 12 replicas (int)" in str(env.cards()[0].card))


async def test_feishu_handoff_card_drawn_after_its_question_was_asked_is_not_edited_until_something_changes(
    tmp_path: Path,
) -> None:
    async with running_feishu(tmp_path) as env:
        deps = env.bot.deps
        asking = Asking(deps.store, deps.runtime, deps.usecases)
        token = mint("ci", ["handoffs:write", "handoffs:read"], "ops", deps.runtime.clock()).stored
        ask = AskRequest(
            prompt="Roll back checkout to v41?",
            input_type="choice",
            options=["roll back", "keep"],
            channel=OPS,
            assignees=["ou_alice"],
        )
        created = await asking.ask(token, ask)
        await env.wait(env.cards)
        [root] = env.cards()
        question = await env.next_review(root)
        await env.idle()
        assert env.fake.messages[root.message_id].edits == 0, "the card was posted showing the question already"

        await env.fake.click("alice", question.message_id, "answer", answer="roll back")
        await env.wait(lambda: env.fake.messages[root.message_id].edits >= 1)
        read = await asking.read(token, created.handoff.id)
        assert isinstance(read, HandoffView) and read.status == "resolved"
