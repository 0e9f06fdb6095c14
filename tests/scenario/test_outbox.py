"""The outbox under faults: Slack errors, 429 storms, an edit that fails before a post, a message that
can never go out, and a bot killed between its commit and its post (a run's message or the report).
Nothing is lost, nothing posted twice."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from pathlib import Path

import pytest

from agent.settings import CoreSettings
from blocks import ids
from cli.main import main as tandem_main
from tests.agent.waiting import eventually
from tests.scenario.harness import (
    OPS,
    THREE_ANCHORS,
    THREE_ANCHORS_ENV,
    Env,
    button_value,
    policy_file,
    running,
    text_of,
)
from tests.scenario.processes import bot_process
from workspace import Workspace, WorkspaceState, run_workspace
from workspace.models import ApiCall, Message

TASK = "restart payments and check errors after"
RECOVERED_WITHIN = 30.0
"""Seconds after a restart by which a dead process's post is taken over (with the default lease; it was 120 s)."""


def posts_of(ws: Workspace, review_id: str) -> int:
    """How many times Slack took a post of the review ``review_id`` (its buttons carry the id)."""
    return sum(
        1
        for call in ws.state.calls_to("chat.postMessage")
        if call.ok and f'"value": "{review_id}"' in json.dumps(call.params.get("blocks"))
    )


async def start(env: Env) -> tuple[Message, Message]:
    card = await env.start(TASK)
    return card, await env.next_review(card)


async def test_review_post_failing_is_retried_and_posted_once(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        env.bot.deps.delivery.retry_scale = 0.01
        card, plan = await start(env)
        for _ in range(3):
            env.ws.state.fail_next("chat.postMessage", "not_in_channel", status=200, retry_after=None)
        await env.click("alice", plan, ids.APPROVE)
        gate = await env.next_review(card, after=plan)
        review_id = button_value(gate, ids.APPROVE)
        assert posts_of(env.ws, review_id) == 1
        failed = [c for c in env.ws.state.calls_to("chat.postMessage") if c.error == "not_in_channel"]
        assert len(failed) == 3
        await env.idle()
        run_id = (await env.bot.deps.store.list_runs())[0].id
        assert await env.bot.deps.store.undelivered(run_id) == []


async def test_rate_limit_storm_delays_but_delivers_every_message_once_in_order(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, THREE_ANCHORS)) as env:
        env.bot.deps.delivery.retry_scale = 0.01
        card, plan = await start(env)
        review_ids = [button_value(plan, ids.CANCEL)]
        for _ in range(12):  # more than the client's own retries: the outbox carries on after them
            env.ws.state.fail_next("chat.postMessage", "ratelimited", status=429, retry_after=0)
        await env.click("alice", plan, ids.APPROVE)
        gate = await env.next_review(card, after=plan, within=20)
        review_ids.append(button_value(gate, ids.CANCEL))
        await env.click("alice", gate, ids.APPROVE)
        result = await env.next_review(card, after=gate, within=20)
        review_ids.append(button_value(result, ids.CANCEL))
        await env.idle()
        texts = [text_of(m) for m in env.ws.state.thread(OPS, card.ts)]
        assert [t for t in texts if "needs approval" in t][:1], "the gate was posted"
        gate_at = next(i for i, t in enumerate(texts) if "needs approval" in t)
        assert gate_at < texts.index(text_of(env.ws.state.message(OPS, result.ts))), "in order"
        for review_id in review_ids:
            assert posts_of(env.ws, review_id) == 1


async def test_failed_edit_of_the_previous_review_never_skips_the_next_post(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, THREE_ANCHORS)) as env:
        env.bot.deps.delivery.retry_scale = 0.01
        card, plan = await start(env)
        env.ws.state.fail_next("chat.update", "message_not_found", status=200, retry_after=None)
        env.ws.state.fail_next("chat.update", "message_not_found", status=200, retry_after=None)
        await env.click("alice", plan, ids.APPROVE)
        gate = await env.next_review(card, after=plan)
        assert "needs approval" in text_of(gate)
        # and the plan's own message is marked decided once the edit goes through
        await env.wait(lambda: "Plan approved by <@U0ALICE>" in text_of(env.ws.state.message(OPS, plan.ts)))
        assert ids.APPROVE not in str(env.ws.state.message(OPS, plan.ts).blocks)


async def test_message_that_cannot_be_delivered_is_visible_and_redelivered_by_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = policy_file(tmp_path, 'escalation_channel = "C0GENERAL"\n')
    async with running(tmp_path, config=config) as env:
        card, plan = await start(env)
        env.ws.state.fail_next("chat.postMessage", "msg_too_long", status=200, retry_after=None)
        await env.click("alice", plan, ids.CANCEL)
        await env.idle()
        run_id = (await env.bot.deps.store.list_runs())[0].id
        undelivered = await env.bot.deps.store.undelivered(run_id)
        assert [(d.status, d.error) for d in undelivered] == [("failed", "msg_too_long")]
        # on the run card, in the escalation channel
        await env.wait(lambda: "could not be delivered (msg_too_long)" in text_of(env.ws.state.message(OPS, card.ts)))
        await env.wait(
            lambda: any("could not deliver a message" in text_of(m) for m in env.ws.state.history("C0GENERAL"))
        )
        thread_before = len(env.ws.state.thread(OPS, card.ts))
        # `tandem redeliver` from another process gives it a fresh start; the bot sends it
        await asyncio.to_thread(_cli, env.db, "show", run_id)
        assert "not delivered: msg_too_long" in capsys.readouterr().out
        await asyncio.to_thread(_cli, env.db, "redeliver", run_id)
        assert "1 message" in capsys.readouterr().out
        await env.wait(lambda: len(env.ws.state.thread(OPS, card.ts)) > thread_before, within=15)
        await env.idle()
        assert await env.bot.deps.store.undelivered(run_id) == []


def _cli(db: Path, *args: str, config: str | None = None) -> None:
    assert tandem_main(list(args), settings_factory=lambda: CoreSettings(db=str(db), config=config)) == 0


async def _killed_mid_post(tmp_path: Path, *, after_applying: bool) -> None:
    db = tmp_path / "tandem.db"
    async with run_workspace() as ws:
        async with bot_process(ws, db, **THREE_ANCHORS_ENV) as first:
            await ws.slash_command("alice", OPS, TASK)

            def plan_posted(s: WorkspaceState) -> bool:
                cards = s.history(OPS)
                return bool(cards) and any("tandem.approve" in str(m.blocks) for m in s.thread(OPS, cards[0].ts))

            await ws.wait_until(plan_posted, within=20)
            card = ws.state.history(OPS)[0]
            plan = [m for m in ws.state.thread(OPS, card.ts) if "tandem.approve" in str(m.blocks)][-1]
            ws.state.hold_next("chat.postMessage", after_applying=after_applying)
            posts = len(ws.state.calls_to("chat.postMessage"))
            await ws.click("alice", OPS, plan.ts, ids.APPROVE, button_value(plan, ids.APPROVE))
            # the gate is committed and its post is on the wire, never answered: then the process dies
            await ws.wait_until(lambda s: not s.holds and len(s.calls_to("chat.postMessage")) >= posts, within=20)
            first.send_signal(signal.SIGKILL)
            await first.wait()
        restarted = time.monotonic()
        async with bot_process(ws, db, **THREE_ANCHORS_ENV):

            def gates() -> list[Message]:
                return [m for m in ws.state.thread(OPS, card.ts) if "needs approval" in text_of(m)]

            await ws.wait_until(lambda _s: bool(gates()), within=RECOVERED_WITHIN + 10)
            if not after_applying:  # (else the gate was in the thread all along)
                took = time.monotonic() - restarted
                print(f"the gate's post was taken over {took:.1f} s after the restart")
                assert took < RECOVERED_WITHIN
            # the restarted bot saw what happened and posted nothing twice; the gate works
            gate = gates()[0]
            assert posts_of(ws, button_value(gate, ids.APPROVE)) == 1
            await ws.click("alice", OPS, gate.ts, ids.APPROVE, button_value(gate, ids.APPROVE))
            await ws.wait_until(lambda s: "Step 1 approved" in text_of(s.message(OPS, gate.ts)), within=20)
            assert len(gates()) == 1


async def test_bot_killed_between_commit_and_post_posts_the_review_once_after_restart(tmp_path: Path) -> None:
    await _killed_mid_post(tmp_path, after_applying=False)


async def test_bot_killed_after_slack_took_the_post_does_not_post_it_again(tmp_path: Path) -> None:
    await _killed_mid_post(tmp_path, after_applying=True)


def reports(s: WorkspaceState) -> list[Message]:
    return [m for m in s.history(OPS) if "Tandem report" in text_of(m)]


def charts(s: WorkspaceState) -> list[ApiCall]:
    return [c for c in s.calls_to("files.completeUploadExternal") if c.ok]


@pytest.mark.parametrize("after_applying", [False, True], ids=["before-slack-took-it", "after-slack-took-it"])
async def test_bot_killed_while_posting_the_report_posts_it_once_soon_after_restart(
    tmp_path: Path, after_applying: bool
) -> None:
    db, config = tmp_path / "tandem.db", policy_file(tmp_path, f'[report]\nchannel = "{OPS}"\n')
    async with run_workspace() as ws:
        async with bot_process(ws, db, TANDEM_CONFIG=config) as first:
            ws.state.hold_next("chat.postMessage", after_applying=after_applying)
            await asyncio.to_thread(_cli, db, "report", "--post", config=config)
            # the report is in the outbox and its figures' post is on the wire, never answered: the process dies
            await ws.wait_until(lambda s: not s.holds, within=20)
            first.send_signal(signal.SIGKILL)
            await first.wait()
        assert len(reports(ws.state)) == int(after_applying) and charts(ws.state) == []
        restarted = time.monotonic()
        async with bot_process(ws, db, TANDEM_CONFIG=config):
            await ws.wait_until(lambda s: bool(charts(s)), within=RECOVERED_WITHIN + 10)  # the chart comes last
            took = time.monotonic() - restarted
            print(f"the report was posted {took:.1f} s after the restart")
            assert took < RECOVERED_WITHIN
            [report] = reports(ws.state)
            assert "Runs\n0\n0\nno change" in text_of(report), text_of(report)
            posted = [c for c in ws.state.calls_to("chat.postMessage") if c.ok and "Tandem report" in str(c.params)]
            assert len(posted) == 1 and len(charts(ws.state)) == 1


async def test_bot_killed_during_a_read_step_after_an_approval_still_tells_the_decision(tmp_path: Path) -> None:
    """The approval commits without waiting for the disk (only a read step follows), so its "approved" line
    is held back, written with it. Killed while that step runs, the bot has told nobody; after a restart the
    line goes out with the run's next durable commit, once."""
    db, folder = tmp_path / "tandem.db", tmp_path / "tools"
    folder.mkdir()
    more = {
        **THREE_ANCHORS_ENV,
        "TANDEM_TOOLS": "tests.cli.held_tools",
        "HELD_TOOLS_DIR": str(folder),
        "TANDEM_STEP_LEASE": "1",
        "TANDEM_SCHEDULER_INTERVAL": "0.5",
    }
    async with run_workspace() as ws:
        async with bot_process(ws, db, **more) as first:
            await ws.slash_command("alice", OPS, "inspect cluster blue then upgrade cluster blue")
            await ws.wait_until(lambda s: bool(s.history(OPS)), within=20)
            card = ws.state.history(OPS)[0]

            def live(s: WorkspaceState) -> list[Message]:
                return [m for m in s.thread(OPS, card.ts) if "tandem.approve" in str(m.blocks)]

            await ws.wait_until(lambda s: bool(live(s)), within=20)
            plan = live(ws.state)[-1]
            (folder / "gate").touch()  # the read step stops before it has any effect
            await ws.click("alice", OPS, plan.ts, ids.APPROVE, button_value(plan, ids.APPROVE))
            # a file, not the workspace: polled (the bot tells Slack nothing while the step is held)
            await eventually((folder / "waiting-inspect_cluster").exists, "the read step to start", 20)
            first.send_signal(signal.SIGKILL)
            await first.wait()
        assert live(ws.state) == [plan], "nobody was told of the approval before it was on disk"
        (folder / "gate").unlink()
        async with bot_process(ws, db, **more):

            def gates() -> list[Message]:
                return [m for m in ws.state.thread(OPS, card.ts) if "needs approval" in text_of(m)]

            await ws.wait_until(lambda _s: bool(gates()), within=30)
            await ws.wait_until(lambda s: "tandem.approve" not in str(s.message(OPS, plan.ts).blocks), within=20)
            marked = ws.state.message(OPS, plan.ts)
            assert "alice" in text_of(marked).lower() or "U0ALICE" in text_of(marked), text_of(marked)
            edits = [c for c in ws.state.calls_to("chat.update") if c.ok and c.params.get("ts") == plan.ts]
            assert len(edits) == 1, "the decision was told once"
        assert (folder / "calls.log").read_text().split() == ["inspect_cluster"], "the read step ran once"
