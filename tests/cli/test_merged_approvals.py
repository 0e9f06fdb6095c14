"""The terminal: ``tandem show`` says what approving the plan does to the restart, ``tandem answer --approve``
by the exec approver approves both, and by the requester or in words (``--say yes``) leaves the gate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.run import tandem_in

TASK = "restart payments and check errors after"


def _run(cwd: Path, *args: str) -> dict[str, Any]:
    proc = tandem_in(cwd, *args)
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


def _planned(tmp_path: Path) -> str:
    (tmp_path / "tandem.toml").write_text('[approvers]\nexec = ["U0BOB"]\n')
    run = _run(tmp_path, "run", "--detach", "--as", "U0ALICE", TASK)
    assert run["pending_review"]["anchor"] == "after_plan"
    return str(run["id"])


def test_answer_approve_by_the_exec_approver_approves_the_restart_with_the_plan(tmp_path: Path) -> None:
    run_id = _planned(tmp_path)
    shown = tandem_in(tmp_path, "show", run_id).stdout
    assert (
        "Approved by @U0BOB (who may approve exec steps), this plan also approves step 1 restart_service "
        "service=payments; approved by anyone else, step 1 still asks @U0BOB right before it runs."
    ) in shown
    run = _run(tmp_path, "answer", run_id, "--approve", "--as", "U0BOB")
    assert run["pending_review"]["anchor"] == "before_result"
    shown = tandem_in(tmp_path, "show", run_id).stdout
    # the result review's evidence (steps since the plan review) shows what the restart did
    assert (
        "Since the last review (2 steps ran):\n  ✓ 1. restart_service  service=payments\n      Restarted payments"
        in shown
    )
    assert "approved step 1 (`restart_service`) with the plan" in shown


def test_answer_approve_by_the_requester_leaves_the_restart_waiting_for_bob(tmp_path: Path) -> None:
    run_id = _planned(tmp_path)
    run = _run(tmp_path, "answer", run_id, "--approve", "--as", "U0ALICE")
    assert run["pending_review"]["anchor"] == "before_risky_step"
    assert "Waiting on: @U0BOB" in tandem_in(tmp_path, "show", run_id).stdout


def test_answer_say_yes_by_the_exec_approver_leaves_the_restart_to_its_gate(tmp_path: Path) -> None:
    run_id = _planned(tmp_path)
    run = _run(tmp_path, "answer", run_id, "--say", "yes", "--as", "U0BOB")
    assert run["pending_review"]["anchor"] == "before_risky_step"
