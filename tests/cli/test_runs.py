"""``tandem runs`` and how the terminal names a run, as a person runs them: real processes on a real SQLite file.
A long task is cut to fit the table (``show`` and ``--json`` keep it whole); an id that starts several runs
says so, and changes nothing."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from agent.machine import asked
from agent.models import Handoff, Policy, RunState, Terminal
from agent.policy import SafetyPolicy
from storage.facade import AsyncStore

ROOT = Path(__file__).resolve().parents[2]
COLUMNS = 100
LONG = (
    "restart payments and check errors after,\nthen "
    + ("look at the checkout queue and the ledger again " * 88).rstrip()
)
CHINESE = "重启支付服务并检查之后的错误，" * 30


def environment(tmp_path: Path) -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "TANDEM_"))}
    db = str(tmp_path / "tandem.db")
    return {**environ, "TANDEM_DB": db, "TANDEM_MODEL": "offline", "COLUMNS": str(COLUMNS), "PYTHONPATH": str(ROOT)}


def tandem(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )


def ok(env: dict[str, str], *args: str) -> str:
    proc = tandem(env, *args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def columns(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


@pytest.mark.parametrize("task", [LONG, CHINESE], ids=["long", "chinese"])
def test_runs_long_task_cut_to_the_terminal_width_and_whole_in_show_and_json(tmp_path: Path, task: str) -> None:
    env = environment(tmp_path)
    run: dict[str, Any] = json.loads(ok(env, "run", "--detach", task, "--as", "alice"))

    listed = ok(env, "runs").splitlines()

    assert len(listed) == 1, "one run, one line"
    [line] = listed
    assert line.startswith(f"{run['id']}  awaiting_review  alice")
    assert columns(line) <= COLUMNS and line.endswith("…")
    assert task.split(",")[0][:12] in line
    assert [r["task"] for r in json.loads(ok(env, "runs", "--json"))] == [task]
    assert f"Task: {task}" in ok(env, "show", run["id"])


def test_runs_piped_with_no_columns_set_shows_a_usual_task_whole(tmp_path: Path) -> None:
    env = {k: v for k, v in environment(tmp_path).items() if k != "COLUMNS"}
    task = "restart payments and check errors after"
    run: dict[str, Any] = json.loads(ok(env, "run", "--detach", task, "--as", "alice"))
    assert ok(env, "runs").splitlines() == [f"{run['id']}  awaiting_review  alice      {task}"]


async def two_runs_starting_ab(db: str) -> None:
    async with AsyncStore(db) as store:
        for run_id in ("ab0000000001", "ab0000000002"):
            state = RunState(id=run_id, task="restart payments", requester="alice", created_at=1e9, updated_at=1e9)
            await store.create(state, [])


@pytest.mark.parametrize(
    "command",
    [["show", "ab"], ["answer", "ab", "--cancel"], ["resume", "ab", "--detach"], ["redeliver", "ab"]],
    ids=lambda c: c[0],
)
def test_run_named_by_a_prefix_of_several_says_so_and_changes_nothing(tmp_path: Path, command: list[str]) -> None:
    env = environment(tmp_path)
    asyncio.run(two_runs_starting_ab(env["TANDEM_DB"]))
    before = ok(env, "runs", "--json")

    proc = tandem(env, *command)

    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.splitlines()[-1] == (
        "error: Several runs start with 'ab' (ab0000000001, ab0000000002); give more of the id. "
        "List runs with `tandem runs`."
    )
    assert ok(env, "runs", "--json") == before
    assert json.loads(ok(env, "show", "ab0000000002", "--json"))["status"] == "planning"


def test_run_named_by_an_empty_id_is_no_run_even_when_only_one_exists(tmp_path: Path) -> None:
    env = environment(tmp_path)
    run: dict[str, Any] = json.loads(ok(env, "run", "--detach", "restart payments", "--as", "alice"))

    proc = tandem(env, "answer", "", "--cancel", "--as", "alice")  # as `tandem answer "$RUN"` with RUN unset

    assert proc.returncode == 1
    assert proc.stderr.splitlines()[-1] == "error: No run with id ''. List runs with `tandem runs`."
    assert json.loads(ok(env, "show", run["id"], "--json"))["status"] == "awaiting_review"


async def handoffs_of_each_priority(db: str) -> None:
    async with AsyncStore(db) as store:
        for n, priority in enumerate(("low", "normal", "urgent", "high")):  # asked in this order, oldest first
            question = Handoff(prompt=f"{priority} question?", priority=priority)
            state, _, _ = asked.start(
                f"h{n}", "token:ci", Terminal(), question, 1e9 + n, SafetyPolicy(), limits=Policy(),
                assignees=["alice"], quorum=1, timeout=None, on_timeout=None,
            )  # fmt: skip
            await store.create(state, [], opened=state.pending)


def test_runs_waiting_on_questions_list_urgent_then_high_first_and_low_last(tmp_path: Path) -> None:
    env = environment(tmp_path)
    asyncio.run(handoffs_of_each_priority(env["TANDEM_DB"]))

    listed = ok(env, "runs").splitlines()

    assert [line.split()[0] for line in listed] == ["h2", "h3", "h1", "h0"]
    assert "[urgent]" in listed[0] and "[low]" in listed[-1] and "[" not in listed[2]
