"""Real processes, really killed: a fresh process resumes exactly where the dead one stopped.

The tests about step leases (a dead owner's step taken over, a live owner's left alone)
run on both backends: with PostgreSQL the processes share a database server instead of a file.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agent.models import Lease
from cli.wiring import open_store
from tests.pgserver import PgServer

ROOT = Path(__file__).resolve().parents[2]
TASK = "inspect cluster blue then upgrade cluster blue"


def _env(tmp_path: Path, db: str) -> dict[str, str]:
    return {
        **os.environ,
        "TANDEM_DB": db,
        "TANDEM_TOOLS": "tests.cli.held_tools",
        "TANDEM_MODEL": "offline",
        "HELD_TOOLS_DIR": str(tmp_path),
        "PYTHONUNBUFFERED": "1",
        # A killed process's claim on its step lapses after a second (renewed every third of it while alive).
        "TANDEM_STEP_LEASE": "1",
        # These runs are killed at and around the deploy's own gate: keep it apart from the plan's approval.
        "TANDEM_POLICY__ANCHORS__MERGE_GATE": "false",
    }


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return _env(tmp_path, str(tmp_path / "tandem.db"))


@pytest.fixture(params=["sqlite", "postgres"])
def any_env(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    """The same, on each backend."""
    if request.param == "postgres":
        server: PgServer = request.getfixturevalue("pg_server")
        return _env(tmp_path, server.schema())
    return _env(tmp_path, str(tmp_path / "tandem.db"))


def tandem(env: dict[str, str], *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "cli.main", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"tandem {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
    return proc


def run_json(env: dict[str, str], *args: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(tandem(env, *args).stdout)
    return data


def calls(env: dict[str, str]) -> list[str]:
    log = Path(env["HELD_TOOLS_DIR"]) / "calls.log"
    return log.read_text().split() if log.exists() else []


def wait_for(predicate: Any, within: float = 20.0) -> None:
    """Poll ``predicate`` (a positive signal: a file, a call, a lease) until it holds; fail at the deadline."""
    deadline = time.monotonic() + within
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.05)


def lease_of(env: dict[str, str], run_id: str) -> Lease | None:
    """The run's step lease as stored: who holds its step in flight, and until when."""

    async def read() -> Lease | None:
        async with open_store(env["TANDEM_DB"]) as store:
            return await store.lease(run_id)

    return asyncio.run(read())


def resume_once_the_lease_lapses(env: dict[str, str], run_id: str) -> dict[str, Any]:
    """``tandem resume --detach`` once the dead process's claim on its step has run out."""
    wait_for(lambda: (lease := lease_of(env, run_id)) is None or lease.until < time.time())
    return run_json(env, "resume", run_id, "--detach")


def test_killed_while_paused_then_answered_from_a_fresh_process(env: dict[str, str]) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "run", TASK],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    seen = ""
    while "[a]pprove" not in seen:
        seen += proc.stdout.read(1)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    proc.stdout.close()
    assert proc.stdin is not None
    proc.stdin.close()
    run_id = seen.split("· run ")[1].split()[0]

    paused = run_json(env, "show", run_id, "--json")
    assert paused["status"] == "awaiting_review" and paused["pending_review"]["anchor"] == "after_plan"
    after = run_json(env, "answer", run_id, "--approve")
    assert after["pending_review"]["anchor"] == "before_risky_step"
    assert after["steps"][0]["status"] == "done"
    assert calls(env) == ["inspect_cluster"]


def test_killed_during_a_risky_step_is_never_rerun_silently(any_env: dict[str, str]) -> None:
    env = any_env
    run = run_json(env, "run", "--detach", TASK)
    run = run_json(env, "answer", run["id"], "--approve")
    assert run["pending_review"]["anchor"] == "before_risky_step"
    hold = Path(env["HELD_TOOLS_DIR"]) / "hold"
    hold.touch()
    # a blind --approve does not open a deploy gate: it names the review to approve instead
    blind = tandem(env, "answer", run["id"], "--approve", check=False)
    gate = run["pending_review"]["id"]
    assert blind.returncode == 1 and f"--approve --review {gate}" in blind.stderr
    command = [sys.executable, "-m", "cli.main", "answer", run["id"], "--approve", "--review", gate]
    proc = subprocess.Popen(command, cwd=ROOT, env=env)
    wait_for(lambda: calls(env) == ["inspect_cluster", "upgrade_cluster"])
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    hold.unlink()

    crashed = run_json(env, "show", run["id"], "--json")
    assert crashed["status"] == "executing" and crashed["steps"][1]["status"] == "running"
    resumed = resume_once_the_lease_lapses(env, run["id"])
    assert resumed["status"] == "awaiting_review"
    assert resumed["pending_review"]["anchor"] == "recovery"
    assert "may or may not" in resumed["steps"][1]["error"]
    assert calls(env) == ["inspect_cluster", "upgrade_cluster"], "the risky step must not re-run by itself"

    # a second resume changes nothing either
    again = run_json(env, "resume", run["id"], "--detach")
    assert again["pending_review"]["id"] == resumed["pending_review"]["id"]

    done = run_json(env, "answer", run["id"], "--approve", "--review", resumed["pending_review"]["id"])
    assert calls(env) == ["inspect_cluster", "upgrade_cluster", "upgrade_cluster"]
    assert done["pending_review"]["anchor"] == "before_result"
    assert done["steps"][1]["status"] == "done" and done["steps"][1]["attempts"] == 2


def test_killed_during_a_read_step_reruns_it_on_resume(env: dict[str, str]) -> None:
    run = run_json(env, "run", "--detach", TASK)
    hold = Path(env["HELD_TOOLS_DIR"]) / "hold"
    hold.touch()
    proc = subprocess.Popen([sys.executable, "-m", "cli.main", "answer", run["id"], "--approve"], cwd=ROOT, env=env)
    wait_for(lambda: calls(env) == ["inspect_cluster"])
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    hold.unlink()
    resumed = resume_once_the_lease_lapses(env, run["id"])
    assert calls(env) == ["inspect_cluster", "inspect_cluster"]
    assert resumed["steps"][0]["status"] == "done"
    assert resumed["pending_review"]["anchor"] == "before_risky_step"


def decided(run: dict[str, Any]) -> list[str]:
    """The reviews of ``run`` its audit trail says were decided, oldest first."""
    return [e["payload"].get("review_id", "") for e in run["events"] if e["kind"] == "decided"]


def test_killed_after_a_commit_that_did_not_wait_for_disk_keeps_the_decision(any_env: dict[str, str]) -> None:
    """The approval commits without waiting for the disk (only a read step follows it); killed before
    that step has any effect, the decision is still there and the step runs once, on resume."""
    env = any_env
    folder = Path(env["HELD_TOOLS_DIR"])
    run = run_json(env, "run", "--detach", TASK)
    plan_review = run["pending_review"]["id"]
    (folder / "gate").touch()
    proc = subprocess.Popen([sys.executable, "-m", "cli.main", "answer", run["id"], "--approve"], cwd=ROOT, env=env)
    wait_for(lambda: (folder / "waiting-inspect_cluster").exists())
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    (folder / "gate").unlink()

    crashed = run_json(env, "show", run["id"], "--json")
    assert crashed["status"] == "executing" and crashed["steps"][0]["status"] == "running"
    assert decided(crashed) == [plan_review], "the approval was committed before the step began"
    assert calls(env) == []
    resumed = resume_once_the_lease_lapses(env, run["id"])
    assert calls(env) == ["inspect_cluster"], "the read step ran once"
    assert resumed["pending_review"]["anchor"] == "before_risky_step"
    assert decided(resumed) == [plan_review]


def test_killed_after_the_shared_commit_before_a_risky_step_runs_nothing_twice(any_env: dict[str, str]) -> None:
    """A risky step's start is on disk before it begins: killed in between, nothing is lost, the step
    does not run by itself, and it runs exactly once when a person says so."""
    env = any_env
    folder = Path(env["HELD_TOOLS_DIR"])
    run = run_json(env, "run", "--detach", TASK)
    run = run_json(env, "answer", run["id"], "--approve")  # decision, read step and next review: one durable commit
    gate = run["pending_review"]["id"]
    assert run["pending_review"]["anchor"] == "before_risky_step" and calls(env) == ["inspect_cluster"]
    (folder / "gate").touch()
    command = [sys.executable, "-m", "cli.main", "answer", run["id"], "--approve", "--review", gate]
    proc = subprocess.Popen(command, cwd=ROOT, env=env)
    wait_for(lambda: (folder / "waiting-upgrade_cluster").exists())
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    (folder / "gate").unlink()

    crashed = run_json(env, "show", run["id"], "--json")
    assert crashed["status"] == "executing" and crashed["steps"][1]["status"] == "running"
    assert crashed["steps"][0]["status"] == "done" and decided(crashed)[-1] == gate
    resumed = resume_once_the_lease_lapses(env, run["id"])
    assert resumed["pending_review"]["anchor"] == "recovery"
    assert calls(env) == ["inspect_cluster"], "the risky step did not run by itself"
    done = run_json(env, "answer", run["id"], "--approve", "--review", resumed["pending_review"]["id"])
    assert calls(env) == ["inspect_cluster", "upgrade_cluster"], "and ran once when a person said so"
    assert done["pending_review"]["anchor"] == "before_result"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["answer", "nope", "--approve"], "No run with id 'nope'"),
        (["show", "nope"], "No run with id 'nope'"),
        (["resume", "nope", "--detach"], "No run with id 'nope'"),
    ],
)
def test_cli_errors_are_clear_and_exit_nonzero(env: dict[str, str], args: list[str], message: str) -> None:
    run_json(env, "run", "--detach", TASK)  # a database with another run in it
    proc = tandem(env, *args, check=False)
    assert proc.returncode == 1
    assert message in proc.stderr


def test_answer_when_nothing_is_pending_changes_nothing(env: dict[str, str]) -> None:
    run = run_json(env, "run", "--detach", TASK)
    run_json(env, "answer", run["id"], "--cancel")
    before = run_json(env, "show", run["id"], "--json")
    proc = tandem(env, "answer", run["id"], "--approve", check=False)
    assert proc.returncode == 1 and "already cancelled" in proc.stderr
    assert run_json(env, "show", run["id"], "--json") == before


def test_intent_without_reject_is_a_usage_error(env: dict[str, str]) -> None:
    run = run_json(env, "run", "--detach", TASK)
    proc = tandem(env, "answer", run["id"], "--approve", "--intent", "replan", check=False)
    assert proc.returncode != 0 and "--intent goes with --reject" in proc.stderr
    assert run_json(env, "show", run["id"], "--json")["pending_review"] == run["pending_review"]


def test_unclear_say_changes_nothing_and_explains(env: dict[str, str]) -> None:
    run = run_json(env, "run", "--detach", TASK)
    proc = tandem(env, "answer", run["id"], "--say", "hmm", check=False)
    assert proc.returncode == 1 and "Not sure what you meant" in proc.stderr
    assert run_json(env, "show", run["id"], "--json")["pending_review"] == run["pending_review"]


def test_resume_while_another_live_process_runs_the_deploy_leaves_it_alone(any_env: dict[str, str]) -> None:
    """A step in flight has one owner: a second process neither declares it interrupted nor runs it again."""
    env = any_env
    run = run_json(env, "run", "--detach", TASK)
    run = run_json(env, "answer", run["id"], "--approve")
    gate = run["pending_review"]["id"]
    hold = Path(env["HELD_TOOLS_DIR"]) / "hold"
    hold.touch()
    command = [sys.executable, "-m", "cli.main", "answer", run["id"], "--approve", "--review", gate]
    owner = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    try:
        wait_for(lambda: calls(env) == ["inspect_cluster", "upgrade_cluster"])
        first = lease_of(env, run["id"])
        assert first is not None

        def resumed_after_the_first_claim_lapsed() -> bool:
            """Resume; true once a resume came after the owner's first claim ran out and the owner still holds
            the step (it renews its lease while the deploy runs)."""
            at = time.time()
            other = run_json(env, "resume", run["id"], "--detach")
            assert other["status"] == "executing" and other["pending_review"] is None
            assert other["steps"][1]["status"] == "running"
            held = lease_of(env, run["id"])
            assert held is not None and held.owner == first.owner
            return at > first.until

        wait_for(resumed_after_the_first_claim_lapsed)
        assert calls(env) == ["inspect_cluster", "upgrade_cluster"]
        kinds = [e["kind"] for e in run_json(env, "show", run["id"], "--json")["events"]]
        assert "recovered" not in kinds
        hold.unlink()
        assert owner.wait(timeout=30) == 0
    finally:
        if owner.poll() is None:
            owner.kill()
            owner.wait()
    done = run_json(env, "show", run["id"], "--json")
    assert done["pending_review"]["anchor"] == "before_result"
    assert calls(env) == ["inspect_cluster", "upgrade_cluster"], "the deploy ran exactly once"


def test_reject_text_read_as_approval_changes_nothing_and_says_why(env: dict[str, str]) -> None:
    run = run_json(env, "run", "--detach", TASK)
    proc = tandem(env, "answer", run["id"], "--reject", "Looks good, proceed", check=False)
    assert proc.returncode == 1 and "a request for changes never approves" in proc.stderr
    assert run_json(env, "show", run["id"], "--json")["pending_review"] == run["pending_review"]
