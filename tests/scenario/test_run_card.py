"""The run card comes from the outbox: a run is stored first, its card posted by the delivery worker, and
its thread follows the card. A card Slack keeps refusing stops the run and tells the requester; a card
that goes through late starts the thread late, and the run goes on."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from agent.models import RunState
from agent.settings import CoreSettings
from blocks import ids
from cli.main import main as tandem_main
from tests.scenario.harness import OPS, Env, running, text_of
from tests.scenario.processes import bot_process
from workspace import WorkspaceState, run_workspace

TASK = "restart payments and check errors after"
CALLS_PER_ATTEMPT = 3  # the Web API client tries a 5xx twice more itself before the outbox counts an attempt
FAST = {"scheduler_interval": 0.05}
LEASES = {"TANDEM_DELIVERY_LEASE": "1", "TANDEM_STEP_LEASE": "1", "TANDEM_SCHEDULER_INTERVAL": "0.5"}
"""A dead process's claims (its card's post, its run's planning) are taken over after a second."""


def slack_down_for(env: Env, attempts: int) -> None:
    """``chat.postMessage`` answers HTTP 500 for the next ``attempts`` outbox attempts."""
    for _ in range(attempts * CALLS_PER_ATTEMPT):
        env.ws.state.fail_next("chat.postMessage", "internal_error", status=500, retry_after=None)


def statuses(env: Env) -> list[str]:
    """The runs' statuses, as the database has them now."""
    with closing(sqlite3.connect(env.db)) as db:
        return [str(row[0]) for row in db.execute("SELECT status FROM runs")]


async def only_run(env: Env) -> RunState:
    runs = await env.bot.deps.store.list_runs()
    assert len(runs) == 1
    return (await env.bot.deps.store.load(runs[0].id))[0]


async def test_start_card_slack_keeps_refusing_requester_told_and_run_cancelled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with running(tmp_path, **FAST) as env:
        env.bot.deps.delivery.retry_scale = 0.001
        env.bot.deps.delivery.max_attempts = 2
        slack_down_for(env, 2)
        answer = await env.ws.slash_command("alice", OPS, TASK)
        assert answer.status == 200

        def told() -> list[str]:
            return [e.text for e in env.ws.state.ephemerals_for("alice") if "did not start" in e.text]

        await env.wait(told, within=20)
        assert "could not post its card" in told()[0] and "internal_error" in told()[0]
        assert env.cards() == [], "no card was posted"
        run = await only_run(env)
        assert run.status == "cancelled" and run.pending is None, "the run waits on nobody"
        await env.idle()
        assert len(told()) == 1, "told once"
        await asyncio.to_thread(_cli, env.db, "runs")
        line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith(run.id))
        assert (
            "cancelled" in line and "its card could not be posted (internal_error)" in line and "not delivered" in line
        )
        await asyncio.to_thread(_cli, env.db, "show", run.id)
        assert "its card could not be posted" in capsys.readouterr().out


async def test_start_card_slack_recovers_within_retries_card_late_and_run_goes_on(tmp_path: Path) -> None:
    async with running(tmp_path, **FAST) as env:
        env.bot.deps.delivery.retry_scale = 0.01
        slack_down_for(env, 1)
        await env.ws.slash_command("alice", OPS, TASK)
        await env.wait(env.cards, within=20)
        card = env.cards()[0]
        failed = [c for c in env.ws.state.calls_to("chat.postMessage") if c.error == "internal_error"]
        assert len(failed) == CALLS_PER_ATTEMPT, "the card went out on the outbox's second attempt"
        plan = await env.next_review(card)
        assert "Plan" in text_of(plan)
        assert TASK in text_of(env.ws.state.message(OPS, card.ts))
        await env.click("alice", plan, ids.APPROVE)
        await env.wait(lambda: env.open_review(card) is None or env.open_review(card) != plan)
        run = await only_run(env)
        assert run.status != "cancelled" and (run.pending is None or run.pending.anchor != "after_plan")
        assert not [e for e in env.ws.state.ephemerals_for("alice") if "did not start" in e.text]


async def test_start_card_refused_after_a_read_only_run_finished_requester_told_and_run_stays_done(
    tmp_path: Path,
) -> None:
    async with running(tmp_path, **FAST) as env:
        env.bot.deps.delivery.retry_scale = 2.0  # the card's second attempt comes after the run is done
        slack_down_for(env, 1)
        await env.ws.slash_command("alice", OPS, "check checkout health")
        await env.wait(lambda: statuses(env) == ["done"], within=20)  # it read and ended while its card waited
        run_id = (await only_run(env)).id
        env.ws.state.fail_next("chat.postMessage", "invalid_blocks", status=200, retry_after=None)

        def told() -> list[str]:
            return [e.text for e in env.ws.state.ephemerals_for("alice") if "could not post the card" in e.text]

        await env.wait(told, within=20)
        assert f"`{run_id}`" in told()[0] and "invalid_blocks" in told()[0] and "ended (done)" in told()[0]
        assert env.cards() == []
        assert (await only_run(env)).status == "done"


async def test_start_bot_killed_after_slack_took_the_card_posts_it_once_and_goes_on_after_restart(
    tmp_path: Path,
) -> None:
    db = tmp_path / "tandem.db"
    async with run_workspace() as ws:
        ws.state.hold_next("chat.postMessage", after_applying=True)  # the card is there; the bot never hears so
        async with bot_process(ws, db, **LEASES) as first:
            await ws.slash_command("alice", OPS, TASK)
            await ws.wait_until(lambda s: not s.holds and bool(s.history(OPS)), within=20)
            first.send_signal(signal.SIGKILL)
            await first.wait()
        card = ws.state.history(OPS)[0]
        async with bot_process(ws, db, **LEASES):

            def plan_posted(s: WorkspaceState) -> bool:
                return any(ids.APPROVE in str(m.blocks) for m in s.thread(OPS, card.ts))

            await ws.wait_until(plan_posted, within=30)
            assert [m.ts for m in ws.state.history(OPS) if m.bot_id and not m.is_reply] == [card.ts], "one card"


def _cli(db: Path, *args: str) -> None:
    assert tandem_main(list(args), settings_factory=lambda: CoreSettings(db=str(db))) == 0
