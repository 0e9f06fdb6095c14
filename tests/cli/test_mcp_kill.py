"""Killed with SIGKILL during an MCP call: the step may have taken effect, so it is never made again silently,
unless its trusted server says a second call changes nothing (``idempotentHint``)."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from cli.wiring import open_store
from tests.mcpservers.servers import calls, run_json, server_toml, tandem_env

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "tandem.toml").write_text(server_toml("kube", log=tmp_path / "ops.log", trust="trusted"))
    return {**tandem_env(tmp_path), "TANDEM_STEP_LEASE": "1"}  # a killed process's claim lapses after a second


def wait_for(predicate: Callable[[], bool], within: float = 30.0) -> None:
    deadline = time.monotonic() + within
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


def killed_during_the_call(env: dict[str, str], tmp_path: Path, task: str, tool: str) -> str:
    """Start ``task``, approve up to its gate, approve the gate in a process killed while ``tool`` is held
    mid-call by the server; the run's id."""
    log = tmp_path / "ops.log"
    run = run_json(env, "run", "--detach", task)
    while run["pending_review"]["anchor"] != "before_risky_step":
        run = run_json(env, "answer", run["id"], "--approve", "--review", run["pending_review"]["id"])
    hold = Path(f"{log}.hold")
    hold.touch()
    command = [
        sys.executable,
        "-m",
        "cli.main",
        "answer",
        run["id"],
        "--approve",
        "--review",
        run["pending_review"]["id"],
    ]
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for(lambda: calls(log) == [tool])  # the server has the call
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    hold.unlink()
    crashed = run_json(env, "show", run["id"], "--json")
    assert crashed["status"] == "executing" and crashed["steps"][0]["status"] == "running"
    wait_for(lambda: lease_lapsed(env, run["id"]))  # the dead process's claim on the step ran out
    return str(run["id"])


def lease_lapsed(env: dict[str, str], run_id: str) -> bool:
    async def read() -> bool:
        async with open_store(env["TANDEM_DB"]) as store:
            lease = await store.lease(run_id)
        return lease is None or lease.until < time.time()

    return asyncio.run(read())


def test_killed_during_a_destructive_mcp_call_is_may_have_taken_effect_and_never_rerun_silently(
    env: dict[str, str], tmp_path: Path
) -> None:
    run_id = killed_during_the_call(env, tmp_path, "delete pod web-1", "delete_pod")
    resumed = run_json(env, "resume", run_id, "--detach")
    assert resumed["pending_review"]["anchor"] == "recovery"
    assert "may or may not have taken effect" in resumed["steps"][0]["error"]
    assert calls(tmp_path / "ops.log") == ["delete_pod"], "the destructive call must not be made again by itself"
    done = run_json(env, "answer", run_id, "--approve", "--review", resumed["pending_review"]["id"])
    assert done["steps"][0]["status"] == "done" and calls(tmp_path / "ops.log") == ["delete_pod", "delete_pod"]


def test_killed_during_an_idempotent_mcp_call_makes_it_again_on_resume(env: dict[str, str], tmp_path: Path) -> None:
    run_id = killed_during_the_call(env, tmp_path, "apply manifest web.yaml", "apply_manifest")
    resumed = run_json(env, "resume", run_id, "--detach")
    assert resumed["steps"][0]["status"] == "done" and resumed["steps"][0]["result"] == "web.yaml applied"
    assert calls(tmp_path / "ops.log") == ["apply_manifest", "apply_manifest"]
