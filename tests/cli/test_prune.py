"""`tandem prune --older-than AGE`: counts printed (text or JSON), dry runs delete nothing, bad ages exit 1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent.models import AuditEvent, Phase, RunState
from agent.settings import CoreSettings
from cli.main import main
from storage.db import connect
from storage.runs import RunStore

ROOT = Path(__file__).resolve().parents[2]
DAY = 86_400.0


def seed(path: Path) -> None:
    """An old finished run, an old run still waiting, a recent finished run, an old delivery key."""
    now = time.time()
    db = connect(path)
    store = RunStore(db)
    runs: list[tuple[str, Phase, float]] = [
        ("old-done", "done", now - 200 * DAY),
        ("old-waiting", "awaiting_review", now - 200 * DAY),
        ("recent-done", "done", now - DAY),
    ]
    for run_id, phase, at in runs:
        state = RunState(id=run_id, task="t", requester="U1", created_at=at, updated_at=at, phase=phase)
        store.create(state, [AuditEvent(at=at, actor="U1", kind="started")])
    store.claim_delivery("msg:C1:1.0", now - 200 * DAY)
    db.close()


def run_ids(path: Path) -> list[str]:
    db = connect(path)
    ids = sorted(r[0] for r in db.execute("SELECT id FROM runs").fetchall())
    db.close()
    return ids


def tandem(path: Path, *args: str) -> int:
    return main(["prune", *args], settings_factory=lambda: CoreSettings(db=str(path)))


def test_prune_with_old_finished_run_prints_counts_and_keeps_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.db"
    seed(path)
    assert tandem(path, "--older-than", "90d") == 0
    out = capsys.readouterr().out
    assert out.startswith("Deleted what finished before ")
    assert "  runs           1\n" in out and "  events         1\n" in out and "  deliveries     1\n" in out
    assert run_ids(path) == ["old-waiting", "recent-done"]


def test_prune_with_json_prints_counts_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.db"
    seed(path)
    assert tandem(path, "--older-than", "12h", "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["dry_run"] is False
    assert report["rows"] == {
        "runs": 2,
        "events": 2,
        "reviews": 0,
        "chat_messages": 0,
        "outbox": 0,
        "asked": 0,
        "a2a_tasks": 0,
        "deliveries": 1,
        "inbox": 0,
    }
    assert report["before"] == pytest.approx(time.time() - 12 * 3600, abs=60)
    assert run_ids(path) == ["old-waiting"]


def test_prune_with_dry_run_prints_counts_and_deletes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.db"
    seed(path)
    assert tandem(path, "--older-than", "30m", "--dry-run", "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["dry_run"] is True and report["rows"]["runs"] == 2
    assert tandem(path, "--older-than", "30m", "--dry-run") == 0
    assert capsys.readouterr().out.startswith("Dry run, nothing deleted. Would delete what finished before ")
    assert run_ids(path) == ["old-done", "old-waiting", "recent-done"]


@pytest.mark.parametrize(
    ("age", "says"),
    [
        ("90x", "'90x' is not a duration; use seconds or a string like '90s', '15m', '2h', '1d'"),
        ("ninety days", "is not a duration"),
        ("0d", "a duration must be positive"),
    ],
)
def test_prune_with_bad_age_says_why_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], age: str, says: str
) -> None:
    path = tmp_path / "t.db"
    assert tandem(path, "--older-than", age) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: --older-than: ") and says in err
    assert not path.exists()  # refused before the database was opened


def test_prune_command_in_a_real_process_exits_0_and_prints_counts(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    seed(path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "TANDEM_"))}
    proc = subprocess.run(
        [sys.executable, "-m", "cli.main", "prune", "--older-than", "90d"],
        cwd=ROOT,
        env={**env, "TANDEM_DB": str(path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "  runs           1\n" in proc.stdout
    assert run_ids(path) == ["old-waiting", "recent-done"]
