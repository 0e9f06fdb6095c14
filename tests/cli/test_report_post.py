"""``tandem report --post`` as a person runs it: a real process writes the post for the running bot."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from agent.models import WeeklyReport
from storage.facade import AsyncStore

ROOT = Path(__file__).resolve().parents[2]


def tandem(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )


def environment(tmp_path: Path, policy: str) -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("TANDEM_")}
    config = tmp_path / "tandem.toml"
    config.write_text(policy)
    db = tmp_path / "tandem.db"
    return {**environ, "TANDEM_DB": str(db), "TANDEM_MODEL": "offline", "TANDEM_CONFIG": str(config)}


async def posts(db: str) -> list[WeeklyReport]:
    async with AsyncStore(db) as store:
        rows = await store.due_deliveries("slack", 4e9, 60.0)
        return [r.message for r in rows if isinstance(r.message, WeeklyReport)]


def test_report_post_writes_one_post_to_the_policys_channel(tmp_path: Path) -> None:
    env = environment(tmp_path, '[report]\nchannel = "C0OPS"\n')
    ran = tandem(env, "run", "restart payments and check errors after", "--detach", "--as", "alice")
    assert ran.returncode == 0, ran.stderr
    proc = tandem(env, "report", "--post", "--since", "30d")
    assert proc.returncode == 0, proc.stderr
    assert "Posting it with its chart to channel C0OPS" in proc.stdout and "Runs                1" in proc.stdout
    [post] = asyncio.run(posts(env["TANDEM_DB"]))
    assert post.channel == "C0OPS" and post.manual is True
    assert post.until - post.since == 30 * 86_400


def test_report_post_without_a_report_channel_says_how_and_writes_nothing(tmp_path: Path) -> None:
    env = environment(tmp_path, "")
    assert tandem(env, "run", "restart payments", "--detach", "--as", "alice").returncode == 0
    proc = tandem(env, "report", "--post")
    assert proc.returncode == 1 and 'set channel = "C…" under [report]' in proc.stderr
    assert asyncio.run(posts(env["TANDEM_DB"])) == []


def test_report_post_with_a_filter_is_a_usage_error_and_writes_nothing(tmp_path: Path) -> None:
    env = environment(tmp_path, '[report]\nchannel = "C0OPS"\n')
    assert tandem(env, "run", "restart payments", "--detach", "--as", "alice").returncode == 0
    proc = tandem(env, "report", "--post", "--channel", "C0OPS")
    assert proc.returncode == 2 and "--post posts the report of every run" in proc.stderr
    assert asyncio.run(posts(env["TANDEM_DB"])) == []
