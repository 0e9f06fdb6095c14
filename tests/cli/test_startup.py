"""Start-up: missing secrets are named before anything runs; /healthz answers with the DB reachable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import aiohttp
import pytest

from tests.scenario.harness import running

ROOT = Path(__file__).resolve().parents[2]


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "TANDEM_"))}
    return {**env, "TANDEM_DB": str(tmp_path / "t.db"), **extra}


@pytest.mark.parametrize(
    ("command", "extra", "named"),
    [
        ("serve", {}, "SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET"),
        ("serve", {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "  "}, "SLACK_SIGNING_SECRET"),
        ("socket", {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "s"}, "SLACK_APP_TOKEN"),
        ("socket", {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xapp-1"}, "SLACK_SIGNING_SECRET"),
    ],
)
def test_missing_secret_fails_at_start_naming_the_variable(
    tmp_path: Path, command: str, extra: dict[str, str], named: str
) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "cli.main", command, "--port", "0"]
        if command == "serve"
        else [sys.executable, "-m", "cli.main", command],
        cwd=ROOT,
        env=_env(tmp_path, **extra),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert f"Missing {named}" in proc.stderr


def test_bad_policy_file_fails_at_start_naming_the_key(tmp_path: Path) -> None:
    policy = tmp_path / "tandem.toml"
    policy.write_text('[approvers]\ndeploi = ["U1"]\n')
    proc = subprocess.run(
        [sys.executable, "-m", "cli.main", "runs"],
        cwd=ROOT,
        env=_env(tmp_path, TANDEM_CONFIG=str(policy)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "approvers.deploi" in proc.stderr


async def test_healthz_answers_with_the_database_reachable(tmp_path: Path) -> None:
    async with running(tmp_path) as env, aiohttp.ClientSession() as http:
        async with http.get(f"{env.bot.url}/healthz") as resp:
            assert resp.status == 200
            assert await resp.json() == {"ok": True}
        await env.bot.deps.store.close()
        async with http.get(f"{env.bot.url}/healthz") as resp:
            assert resp.status == 503
            assert "database unreachable" in (await resp.json())["error"]


_LOADING_PROBE = """
import gc, json, sys
during = []
def seen(phase, info):
    loading = getattr(sys.modules.get("cli.main"), "main", None) is None  # cli.main's imports not done yet
    if phase == "start" and "cli.main" in sys.modules and loading:
        during.append(info["generation"])
gc.callbacks.append(seen)
sys.argv = ["tandem", "tools"]
from cli.start import main
code = main()
print(json.dumps({"code": code, "collections_while_loading": len(during), "collecting_after": gc.isenabled(),
                  "frozen": gc.get_freeze_count() > 0}))
"""


def test_tandem_command_loads_its_modules_without_collecting_and_runs_with_collection_on(tmp_path: Path) -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]["tandem"]
    done = subprocess.run(
        [sys.executable, "-c", _LOADING_PROBE], cwd=ROOT, env=_env(tmp_path), capture_output=True, text=True
    )

    assert declared == "cli.start:main"
    assert done.returncode == 0, done.stderr[-2000:]
    line = json.loads(done.stdout.strip().splitlines()[-1])
    assert line == {"code": 0, "collections_while_loading": 0, "collecting_after": True, "frozen": True}
