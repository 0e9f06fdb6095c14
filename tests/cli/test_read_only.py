"""Commands that read runs: they never create a database, stop quietly when their reader goes away
(``tandem runs | head``), and ``tandem show`` gives local times (its JSON keeps epoch seconds)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
TASK = "restart payments and check errors after"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "TANDEM_"))}
    return {**env, "PYTHONPATH": str(ROOT), **extra}  # no TANDEM_TOOLS: the demo toolset


def tandem(cwd: Path, *args: str, stdout: int | None = subprocess.PIPE, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args],
        cwd=cwd,
        env=_env(**env),
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
    )


def started(cwd: Path) -> dict[str, Any]:
    proc = tandem(cwd, "run", "--detach", TASK)
    assert proc.returncode == 0, proc.stderr
    run: dict[str, Any] = json.loads(proc.stdout)
    return run


@pytest.mark.parametrize(
    "command",
    [
        ["runs"],
        ["runs", "--json"],
        ["show", "abc"],
        ["show", "abc", "--json"],
        ["prune", "--older-than", "1d", "--dry-run"],
        ["tick"],
        ["answer", "abc", "--approve"],
        ["resume", "abc", "--detach"],
        ["redeliver", "abc"],
        ["lessons"],
        ["lessons", "forget", "abc"],
    ],
)
def test_command_in_a_folder_without_database_says_so_and_creates_nothing(tmp_path: Path, command: list[str]) -> None:
    proc = tandem(tmp_path, *command)

    assert proc.returncode == 1
    assert proc.stderr.startswith("error: No database at ./tandem.db: no runs here yet, and nothing was created.")
    assert proc.stdout == ""
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", [["runs"], ["runs", "--json"], ["show", "{run}"], ["show", "{run}", "--json"]])
def test_output_to_a_reader_that_went_away_exits_quietly(tmp_path: Path, command: list[str]) -> None:
    run = started(tmp_path)
    read, write = os.pipe()
    os.close(read)  # the reader is gone before anything is written: `tandem runs | head` after head exits
    try:
        proc = tandem(tmp_path, *(part.format(run=run["id"]) for part in command), stdout=write)
    finally:
        os.close(write)

    assert (proc.returncode, proc.stderr) == (141, "")


def test_show_gives_local_times_and_its_json_epoch_seconds(tmp_path: Path) -> None:
    run = started(tmp_path)
    zone = timezone(timedelta(hours=5, minutes=30))  # what TZ=TST-05:30 means, with no tz database needed

    text = tandem(tmp_path, "show", run["id"], TZ="TST-05:30")
    data = json.loads(tandem(tmp_path, "show", run["id"], "--json", TZ="TST-05:30").stdout)

    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    history = lines.index("History (local time, TST (UTC+0530)):")
    assert data["events"] and all(isinstance(e["at"], float) for e in data["events"])
    for line, event in zip(lines[history + 1 :], data["events"], strict=True):
        local = datetime.fromtimestamp(event["at"], zone).strftime("%Y-%m-%d %H:%M:%S")
        assert line.startswith(f"  {local}  {event['actor']:<10} {event['kind']}"), line
