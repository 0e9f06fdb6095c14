"""A correction does what was said, no less, through the real app: a thread reply and the Request changes
modal, with signed requests against the local Slack fake."""

from __future__ import annotations

from pathlib import Path

from blocks import ids
from tests.scenario.harness import OPS, THREE_ANCHORS, Env, policy_file, running, text_of
from workspace.models import Message

TASK = "restart payments and check errors after"


def _modal_values(intent: str, text: str) -> dict[str, object]:
    return {
        ids.INTENT_BLOCK: {ids.INTENT_ACTION: {"type": "radio_buttons", "selected_option": {"value": intent}}},
        ids.FEEDBACK_BLOCK: {ids.FEEDBACK_ACTION: {"type": "plain_text_input", "value": text}},
    }


async def _request_changes(env: Env, review: Message, intent: str, text: str) -> None:
    await env.click("alice", review, ids.REJECT)
    await env.wait(lambda: bool(env.ws.state.open_modals("U0ALICE")))  # opened once the review is read
    modal = env.ws.state.open_modals("U0ALICE")[-1]
    await env.ws.submit_view("alice", modal.id, state_values=_modal_values(intent, text))


async def test_thread_reply_logs_first_keeps_the_check_after_the_restart(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card = await env.start(TASK)
        plan = await env.next_review(card)
        await env.ws.reply_in_thread(
            "alice", OPS, card.ts, "Read the payments error logs first, before restarting anything"
        )

        replanned = await env.next_review(card, after=plan)

        text = text_of(replanned)
        assert text.count("read_logs") == 2, text
        assert text.index("read_logs") < text.index("restart_service") < text.rindex("read_logs")


async def test_modal_retry_with_an_unknown_service_names_it_and_uses_no_correction(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, THREE_ANCHORS)) as env:  # the gate apart
        card = await env.start(TASK)
        plan = await env.next_review(card)
        await env.click("alice", plan, ids.APPROVE)
        gate = await env.next_review(card, after=plan)
        assert "restart_service" in text_of(gate)

        await _request_changes(env, gate, "retry_step", "use the orders service instead")

        again = await env.next_review(card, after=gate)
        text = text_of(again)
        assert "There is no service `orders`. Known: payments, checkout" in text
        assert "`the`" not in text and "`service=payments`" in text  # the step is unchanged
        runs = await env.bot.deps.store.list_runs()
        state = (await env.bot.deps.store.load(runs[0].id)).state
        assert (state.retries, state.feedback) == (0, [])


async def test_thread_reply_at_the_gate_never_takes_the_negated_service(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, THREE_ANCHORS)) as env:  # the gate apart
        card = await env.start(TASK)
        plan = await env.next_review(card)
        await env.click("alice", plan, ids.APPROVE)
        gate = await env.next_review(card, after=plan)

        await _request_changes(env, gate, "retry_step", "restart orders, not payments")

        again = await env.next_review(card, after=gate)
        assert "There is no service `orders`" in text_of(again)
        assert "changes nothing" not in text_of(again)
