"""``tandem dev``: the workspace with its page and the real bot, pointed at each other."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

from blocks import ids
from cli.dev import DEMO_POLICY, dev_settings, developing, policy_for
from tests.scenario.harness import button_value
from workspace import WorkspaceState, run_workspace
from workspace.snapshot import ROLES

ROOT = Path(__file__).resolve().parents[2]
FOREIGN_ENV = {
    "SLACK_BOT_TOKEN": "xoxb-real-workspace",
    "SLACK_SIGNING_SECRET": "real-signing-secret",
    "SLACK_APP_TOKEN": "xapp-real",
    "SLACK_API_URL": "http://127.0.0.1:9/api/",
    "TANDEM_MODEL": "openai/gpt-4o-mini",
    "TANDEM_TOOLS": "no.such.module",
}


def plan_review_posted(state: WorkspaceState) -> bool:
    return any(m.is_reply and "Plan for review" in str(m.blocks) for m in state.messages["C0OPS"])


async def test_dev_settings_come_from_the_workspace_not_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name, value in FOREIGN_ENV.items():
        monkeypatch.setenv(name, value)
    async with run_workspace() as ws:
        settings = dev_settings(ws, tmp_path / "t.db")

    assert (settings.secret("bot_token"), settings.secret("signing_secret")) == (ws.bot_token, ws.signing_secret)
    assert (settings.api_url, settings.app_token) == (ws.api_url, None)
    assert (settings.model, settings.tools, settings.db) == ("offline", "demo.tools", str(tmp_path / "t.db"))


async def test_dev_runs_a_task_from_the_page_endpoints_to_a_review(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name, value in FOREIGN_ENV.items():
        monkeypatch.setenv(name, value)
    async with developing(port=0, db=tmp_path / "t.db") as dev, aiohttp.ClientSession() as http:
        assert dev.url.startswith("http://127.0.0.1:") and dev.bot.url.startswith("http://127.0.0.1:")
        body = {"user": "alice", "channel": "C0OPS", "text": "restart payments and check errors after"}
        async with http.post(f"{dev.url}/ui/command", json=body) as response:
            assert (await response.json())["ok"] is True

        await dev.ws.wait_until(plan_review_posted, within=10)
        card = dev.ws.state.history("C0OPS")[0]
        assert "restart payments" in str(card.blocks) and card.bot_id


async def test_tandem_dev_prints_the_url_serves_the_page_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "cli.main",
        "dev",
        "--port",
        "0",
        "--db",
        str(tmp_path / "t.db"),
        cwd=ROOT,
        env={**os.environ, **FOREIGN_ENV},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    try:
        async with asyncio.timeout(20):
            first = (await proc.stdout.readline()).decode()
        found = re.search(r"open (http://127\.0\.0\.1:\d+)", first)
        assert found, first + (await proc.stderr.read()).decode()
        async with aiohttp.ClientSession() as http, http.get(found.group(1)) as response:
            assert response.status == 200
            assert "Tandem" in await response.text()
    finally:
        proc.send_signal(signal.SIGINT)
        async with asyncio.timeout(20):
            out, err = await proc.communicate()

    assert proc.returncode == 0, err.decode()
    assert "Stopped." in out.decode()
    assert "the demo policy: bob approves exec and deploy steps" in out.decode(), "the banner names the policy"
    assert "Traceback" not in err.decode()


def test_dev_policy_is_the_demo_one_unless_given_or_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert policy_for(None)[0] == DEMO_POLICY
    assert policy_for("mine.toml") == ("mine.toml", "policy mine.toml")
    (tmp_path / "tandem.toml").write_text("")
    assert policy_for(None)[0] == "tandem.toml"


async def test_dev_demo_policy_makes_bob_the_approver_the_page_says_he_is(tmp_path: Path) -> None:
    async with developing(port=0, db=tmp_path / "t.db", config=DEMO_POLICY, card_update_interval=0.01) as dev:
        people = {u.id: u.name for u in dev.ws.state.users.values()}
        assert ROLES == {"U0ALICE": "requester", "U0BOB": "approver", "U0CAROL": "outsider"}
        assert {people[i] for i in ROLES} == {"alice", "bob", "carol"}
        await dev.ws.slash_command("alice", "C0OPS", "restart payments and check errors after")
        await dev.ws.wait_until(plan_review_posted, within=10)
        plan = next(m for m in dev.ws.state.messages["C0OPS"] if m.is_reply and "Plan for review" in str(m.blocks))
        await dev.ws.click("alice", "C0OPS", plan.ts, ids.APPROVE, button_value(plan, ids.APPROVE))

        def gate_posted(state: WorkspaceState) -> bool:
            return any(m.is_reply and "needs approval" in str(m.blocks) for m in state.messages["C0OPS"])

        await dev.ws.wait_until(gate_posted, within=10)
        gate = next(m for m in dev.ws.state.messages["C0OPS"] if m.is_reply and "needs approval" in str(m.blocks))
        assert "Waiting on <@U0BOB>" in str(gate.blocks)
        await dev.ws.click("alice", "C0OPS", gate.ts, ids.APPROVE, button_value(gate, ids.APPROVE))
        await dev.ws.wait_until(lambda s: any("Only <@U0BOB>" in str(e.blocks) for e in s.ephemerals_for("alice")))
        await dev.ws.click("bob", "C0OPS", gate.ts, ids.APPROVE, button_value(gate, ids.APPROVE))
        await dev.ws.wait_until(lambda s: "approved by <@U0BOB>" in str(s.message("C0OPS", gate.ts).blocks), within=10)


async def test_dev_restart_keeps_the_cards_and_threads_runs_point_at(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    async with developing(port=0, db=db, card_update_interval=0.01) as dev:
        await dev.ws.slash_command("alice", "C0OPS", "restart payments and check errors after")
        await dev.ws.wait_until(plan_review_posted, within=10)
        kept = [m.ts for m in dev.ws.state.messages["C0OPS"]]

    async with developing(port=0, db=db, card_update_interval=0.01) as dev:
        assert [m.ts for m in dev.ws.state.messages["C0OPS"]][: len(kept)] == kept
        review = dev.ws.state.messages["C0OPS"][1]
        await dev.ws.click("alice", "C0OPS", review.ts, "tandem.approve", button_value(review, "tandem.approve"))

        # alice decides everything without a policy: her approval of the plan approves the restart it shows
        def result_posted(state: WorkspaceState) -> bool:
            return any("Result ready for review" in str(m.blocks) for m in state.messages["C0OPS"])

        await dev.ws.wait_until(result_posted, within=10)


async def test_dev_fresh_database_starts_a_fresh_workspace(tmp_path: Path) -> None:
    (tmp_path / "t.db.workspace.json").write_text("not even json")

    async with developing(port=0, db=tmp_path / "t.db") as dev:
        assert dev.ws.state.messages["C0OPS"] == []


def _ports_with_one_busy(offset: int) -> tuple[int, socket.socket]:
    """A free port ``port`` and a socket holding ``port + offset`` (listening, as a running server's would be)."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        busy = socket.socket()
        try:
            busy.bind(("127.0.0.1", port + offset))
        except OSError:
            busy.close()
            continue
        busy.listen()
        return port, busy
    raise AssertionError("no free port found")


@pytest.mark.parametrize(("offset", "part"), [(1, "the Feishu view"), (0, "the page")])
def test_tandem_dev_with_a_port_busy_names_that_port_and_leaves_no_file(tmp_path: Path, offset: int, part: str) -> None:
    port, busy = _ports_with_one_busy(offset)
    with busy:
        proc = subprocess.run(
            [sys.executable, "-m", "cli.main", "dev", "--port", str(port), "--db", str(tmp_path / "t.db")],
            cwd=ROOT,
            env={**os.environ, **FOREIGN_ENV},
            capture_output=True,
            text=True,
            timeout=60,
        )

    assert proc.returncode == 1, proc.stderr
    assert f"error: could not start {part} on 127.0.0.1:{port + offset}:" in proc.stderr
    assert f":{port + 1 - offset}:" not in proc.stderr and "--port N" in proc.stderr and "Traceback" not in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [], "no database and no workspace file"
