"""``tandem answer RUN --say "why restart it?"``: a question is answered from the run and changes nothing
(real subprocesses on a real SQLite file, the demo toolset, the offline reader)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.run import tandem_ok as ok

TASK = "restart payments and check errors after"
GATE_APART = "[anchors]\nmerge_gate = false\n"
"""A ``./tandem.toml`` that keeps the restart's own gate apart from the plan's approval."""


def shown(cwd: Path, run_id: str) -> dict[str, Any]:
    run: dict[str, Any] = json.loads(ok(cwd, "show", run_id, "--json"))
    return run


@pytest.mark.parametrize("question", ["why restart it?", "为什么要重启？"])
def test_answer_question_at_a_gate_prints_the_answer_and_changes_nothing(tmp_path: Path, question: str) -> None:
    (tmp_path / "tandem.toml").write_text(GATE_APART)
    run = json.loads(ok(tmp_path, "run", "--detach", TASK, "--as", "alice"))
    ok(tmp_path, "answer", run["id"], "--approve", "--as", "alice")
    before = shown(tmp_path, run["id"])
    assert before["pending_review"]["anchor"] == "before_risky_step"

    said = ok(tmp_path, "answer", run["id"], "--say", question, "--as", "alice")

    assert said.startswith("Step 1 `restart_service` service=payments: ")
    assert "It has not run yet." in said and "the review is still waiting for your decision" in said
    after = shown(tmp_path, run["id"])
    assert after["pending_review"] == before["pending_review"] and after["retries"] == 0
    assert after["feedback"] == [] and after["steps"] == before["steps"] and after["plan"] == before["plan"]


def test_answer_question_at_the_plan_review_names_every_step(tmp_path: Path) -> None:
    run = json.loads(ok(tmp_path, "run", "--detach", TASK, "--as", "alice"))

    said = ok(tmp_path, "answer", run["id"], "--say", "what will this change?", "--as", "alice")

    assert "Step 1 `restart_service` service=payments" in said and "Step 2 `read_logs` service=payments" in said
    assert shown(tmp_path, run["id"])["pending_review"] == run["pending_review"]
