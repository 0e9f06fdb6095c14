"""``tandem answer``: a gate correction naming a service the tools do not know names it, never a stray or
negated word, and uses none of the three corrections (real subprocesses on a real SQLite file)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.run import tandem_in

TASK = "restart payments and check errors after"
GATE_APART = "[anchors]\nmerge_gate = false\n"
"""A ``./tandem.toml`` that keeps the restart's own gate apart from the plan's approval."""


def answered(cwd: Path, *args: str) -> dict[str, Any]:
    proc = tandem_in(cwd, *args, "--as", "alice")
    assert proc.returncode == 0, proc.stderr
    run: dict[str, Any] = json.loads(proc.stdout)
    return run


def test_answer_reject_retry_step_with_unknown_service_names_it_and_counts_nothing(tmp_path: Path) -> None:
    (tmp_path / "tandem.toml").write_text(GATE_APART)
    run = answered(tmp_path, "run", "--detach", TASK)
    gate = answered(tmp_path, "answer", run["id"], "--approve")
    assert gate["pending_review"]["anchor"] == "before_risky_step"

    after = answered(
        tmp_path, "answer", run["id"], "--reject", "use the orders service instead", "--intent", "retry_step"
    )

    note = after["pending_review"]["note"]
    assert note == (
        "Step 1 was not changed: There is no service `orders`. Known: payments, checkout, search, auth, notifications."
    )
    assert (after["retries"], after["feedback"], after["steps"][0]["params"]) == (0, [], {"service": "payments"})


def test_answer_say_with_a_negated_service_never_takes_it(tmp_path: Path) -> None:
    (tmp_path / "tandem.toml").write_text(GATE_APART)
    run = answered(tmp_path, "run", "--detach", TASK)
    answered(tmp_path, "answer", run["id"], "--approve")

    after = answered(tmp_path, "answer", run["id"], "--say", "restart orders, not payments")

    assert "There is no service `orders`" in after["pending_review"]["note"]
    assert (after["retries"], after["steps"][0]["params"]) == (0, {"service": "payments"})


def test_run_json_of_a_run_whose_part_was_taken_back_lists_nothing_as_not_done(tmp_path: Path) -> None:
    run = answered(tmp_path, "run", "--detach", TASK)
    answered(tmp_path, "answer", run["id"], "--reject", "don't check errors", "--intent", "replan")
    shown = json.loads(tandem_in(tmp_path, "show", run["id"], "--json").stdout)
    assert [s["tool"] for s in shown["steps"]] == ["restart_service"]

    done = shown
    while done["pending_review"] is not None:  # the plan, the restart's gate, the result
        done = answered(tmp_path, "answer", run["id"], "--approve", "--review", done["pending_review"]["id"])

    assert done["status"] == "done" and done["not_done"] == [] and done["output"].startswith("**Done")
