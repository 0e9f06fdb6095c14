"""The run card's neutral view: one wording of what a run does now, and of what it could not deliver."""

from __future__ import annotations

from pathlib import Path

from agent.card_view import RunCardView, run_card_view, status_detail
from agent.config import PolicyConfig
from agent.models import NewsLine, RunStarted
from agent.policy import SafetyPolicy
from storage.facade import AsyncStore
from tests.blocks.states import reviewing, state, step


def test_status_detail_of_a_gate_and_of_a_running_step_says_which_step() -> None:
    gate, _ = reviewing("before_risky_step")
    assert status_detail(gate) == f"approval of step {gate.pending.step if gate.pending else '?'}"
    running = state("executing", plan=[step(1, status="done"), step(2, status="running"), step(3)])
    assert status_detail(running) == "running step 2 of 3"


def test_undelivered_note_counts_messages_and_escapes_the_platforms_error() -> None:
    view = RunCardView(state("executing"), [], "", (), undelivered=2, last_error="<msg_too_long>")
    note = view.undelivered_note(lambda s: s.replace("<", "&lt;").replace(">", "&gt;"))
    assert note.startswith("2 messages of this run could not be delivered (&lt;msg_too_long&gt;)")
    assert RunCardView(state("executing"), [], "", (), undelivered=0).undelivered_note(str) == ""


async def test_run_card_view_leaves_out_the_cards_own_first_post(tmp_path: Path) -> None:
    run = state("executing")
    async with AsyncStore(tmp_path / "v.db") as store:
        await store.create(run, [], outbox=("slack", [RunStarted(), NewsLine(text="disk at 91%")]))
        rows = await store.due_deliveries("slack", run.updated_at + 1, 60)
        for row in rows:
            await store.fail_delivery(row.id, 8, "channel_not_found" if row.message.kind == "started" else "boom")
        view = await run_card_view(store, run, SafetyPolicy(PolicyConfig()))
    assert (view.undelivered, view.last_error) == (1, "boom")
