"""An MCP server's questions during a tool call, answered with ``tandem answer``: each answer comes from a
fresh process (and a fresh server process), so every test here is also a wait that outlived its connection."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.mcpservers.servers import calls, eliciting_toml, run_json, tandem, tandem_env


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return tandem_env(tmp_path)


def at_question(env: dict[str, str], tmp_path: Path, key: str | None) -> str:
    """A run of ``move service web`` through the eliciting server, approved up to its first question."""
    Path(env["TANDEM_CONFIG"]).write_text(eliciting_toml("deploys", tmp_path / "ops.log", key=key, trust="trusted"))
    run = run_json(env, "run", "--detach", "move service web")
    while run["pending_review"]["anchor"] != "handoff":
        run = run_json(env, "answer", run["id"], "--approve")
    run_id: str = run["id"]
    return run_id


def terminal_run(env: dict[str, str], tmp_path: Path, typed: str) -> subprocess.CompletedProcess[str]:
    """``tandem run "move service web"`` in the terminal through the eliciting server, ``typed`` at its prompts."""
    Path(env["TANDEM_CONFIG"]).write_text(eliciting_toml("deploys", tmp_path / "ops.log", trust="trusted"))
    return tandem(env, "run", "move service web", typed=typed)


def test_elicitation_answered_field_by_field_from_the_cli_moves_the_service_once(
    env: dict[str, str], tmp_path: Path
) -> None:
    run_id = at_question(env, tmp_path, key="k" * 32)
    shown = tandem(env, "show", run_id)
    assert "Where should web move?" in shown.stdout and "eu-west-1" in shown.stdout, shown.stdout
    run_json(env, "answer", run_id, "--answer", "eu-west-1")
    refused = tandem(env, "answer", run_id, "--answer", "three")
    assert refused.returncode != 0 and "'three' is not a number" in refused.stderr
    run_json(env, "answer", run_id, "--answer", "3")
    run = run_json(env, "answer", run_id, "--answer", "yes")
    assert run["steps"][0]["status"] == "done"
    assert run["steps"][0]["result"] == "web moved to eu-west-1 with 3 replicas, drained first"
    assert [c for c in calls(tmp_path / "ops.log") if c != "asked"] == ["move", "web", "eu-west-1", "3", "true"]


def test_elicitation_answered_after_the_server_lost_its_key_fails_the_step_and_a_rerun_asks_again(
    env: dict[str, str], tmp_path: Path
) -> None:
    run_id = at_question(env, tmp_path, key=None)  # each server process seals with a key of its own
    run_json(env, "answer", run_id, "--answer", "us-east-1")
    run_json(env, "answer", run_id, "--answer", "2")
    run = run_json(env, "answer", run_id, "--answer", "no")
    step = run["steps"][0]
    assert step["status"] == "failed" and "no longer accepts the answers" in step["error"]
    assert "run the step again to be asked again" in step["error"]
    assert not any(c == "move" for c in calls(tmp_path / "ops.log"))
    assert json.dumps(run).count("moved to") == 0
    run = run_json(env, "answer", run_id, "--reject", "run it again", "--intent", "retry_step", "--step", "1")
    while run["pending_review"]["anchor"] != "handoff":
        run = run_json(env, "answer", run_id, "--approve")
    assert "Where should web move?" in tandem(env, "show", run_id).stdout  # asked afresh, not the spent state
    assert not any(c == "move" for c in calls(tmp_path / "ops.log"))


def test_elicitation_in_the_terminal_run_is_asked_field_by_field_and_refuses_a_non_number(
    env: dict[str, str], tmp_path: Path
) -> None:
    run = terminal_run(env, tmp_path, "a\na\n2\nfive\n5\nn\na\n")
    assert run.returncode == 0, run.stderr
    assert "Where should web move?" in run.stdout and "Replicas (a whole number)" in run.stdout
    assert "'five' is not a number. The question stays open." in run.stderr
    assert "web moved to us-east-1 with 5 replicas" in run.stdout
    assert [c for c in calls(tmp_path / "ops.log") if c != "asked"] == ["move", "web", "us-east-1", "5", "false"]


def test_elicitation_declined_from_the_cli_sends_decline_and_an_outsiders_decline_is_refused(
    env: dict[str, str], tmp_path: Path
) -> None:
    run_id = at_question(env, tmp_path, key="k" * 32)
    refused = tandem(env, "answer", run_id, "--decline", "--as", "mallory")
    assert refused.returncode != 0 and "can steer or stop this run. Nothing changed." in refused.stderr
    assert "Where should web move?" in tandem(env, "show", run_id).stdout, "the question stays open"
    review = run_json(env, "show", run_id, "--json")["pending_review"]["id"]
    run = run_json(env, "answer", run_id, "--decline")
    assert run["steps"][0]["status"] == "done" and run["steps"][0]["result"] == "web not moved (decline)"
    again = tandem(env, "answer", run_id, "--decline", "--review", review)
    assert again.returncode != 0 and "Already declined by" in again.stderr, again.stderr
    assert [c for c in calls(tmp_path / "ops.log") if c != "asked"] == ["kept", "web", "decline"]


def test_elicitation_in_the_terminal_run_declined_by_typing_decline_sends_decline(
    env: dict[str, str], tmp_path: Path
) -> None:
    run = terminal_run(env, tmp_path, "a\na\ndecline\na\n")
    assert run.returncode == 0, run.stderr
    assert "answer (or 'decline' / 'cancel')" in run.stdout and "web not moved (decline)" in run.stdout
    assert [c for c in calls(tmp_path / "ops.log") if c != "asked"] == ["kept", "web", "decline"]
