"""People on cards and answers in Slack: only Slack's own, as Slack draws them, the same everywhere."""

from __future__ import annotations

from pathlib import Path

from tests.scenario.harness import OPS, gate_of, policy_file, running, text_of

BOTH_PLATFORMS = """
[approvers]
exec = ["U0BOB", "ou_bob"]
"""


async def test_slack_card_with_feishu_approvers_too_names_only_slack_people(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, BOTH_PLATFORMS)) as env:
        card, _ = await gate_of(env, "restart payments and check errors after")
        await env.wait(lambda: "Approvals: exec+" in text_of(env.ws.state.message(OPS, card.ts)))
        shown = text_of(env.ws.state.message(OPS, card.ts))
        assert "Approvals: exec+ <@U0BOB> ·" in shown, shown


async def test_status_of_a_run_with_approvers_names_them_as_the_card_does(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, BOTH_PLATFORMS)) as env:
        card, _ = await gate_of(env, "restart payments and check errors after")
        run_id = (await env.bot.deps.store.list_runs())[0].id
        before = len(env.ws.state.ephemerals_for("U0ALICE"))
        await env.ws.slash_command("alice", OPS, f"status {run_id}")
        await env.ws.wait_until(lambda s: len(s.ephemerals_for("U0ALICE")) > before, within=10)
        status = text_of(env.ws.state.ephemerals_for("U0ALICE")[-1])  # type: ignore[arg-type]
        assert "Approvals: exec+ <@U0BOB> ·" in status, status
        assert "approval of step 1 · waiting on <@U0BOB>" in status, "as the card says who it waits on"
        assert "the requester decides" not in status


async def test_channel_report_names_its_channel_as_a_slack_link_not_literal_text(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        await env.ws.slash_command("alice", OPS, "report")
        await env.ws.wait_until(lambda s: bool(s.ephemerals_for("U0ALICE")), within=10)
        shown = text_of(env.ws.state.ephemerals_for("U0ALICE")[-1])  # type: ignore[arg-type]
        assert f"<#{OPS}> ·" in shown, shown
        assert "&lt;#" not in shown
