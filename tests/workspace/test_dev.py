"""``tandem dev``: the workspace with its page and the real bot, pointed at each other."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from pathlib import Path

import aiohttp
import pytest

from cli.dev import dev_settings, developing
from tests.scenario.harness import button_value
from workspace import WorkspaceState, run_workspace

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
    assert "Traceback" not in err.decode()


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

        def step_gate_posted(state: WorkspaceState) -> bool:
            return any("needs approval" in str(m.blocks) for m in state.messages["C0OPS"])

        await dev.ws.wait_until(step_gate_posted, within=10)


async def test_dev_fresh_database_starts_a_fresh_workspace(tmp_path: Path) -> None:
    (tmp_path / "t.db.workspace.json").write_text("not even json")

    async with developing(port=0, db=tmp_path / "t.db") as dev:
        assert dev.ws.state.messages["C0OPS"] == []
