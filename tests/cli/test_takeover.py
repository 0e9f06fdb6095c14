"""Takeover and tasks no tool can do, through the real ``tandem``: ``answer --say`` past the correction limit,
``answer --instruct``, ``--finish``; ``run "order pizza"``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.run import tandem_in

CAN_DO = "What I can do here: list services, check service, read logs"


def run_json(cwd: Path, *args: str) -> dict[str, Any]:
    proc = tandem_in(cwd, *args)
    assert proc.returncode == 0, proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def test_answer_past_the_correction_limit_proposes_it_then_instructions_steer_to_the_end(tmp_path: Path) -> None:
    run = run_json(tmp_path, "run", "restart payments and check errors after", "--detach")["id"]
    for text in ["restart checkout instead", "no, restart search instead", "wrong again, restart auth instead"]:
        assert run_json(tmp_path, "answer", run, "--say", text)["status"] == "awaiting_review"

    taken = run_json(tmp_path, "answer", run, "--say", "still not right, restart notifications")
    assert taken["status"] == "human_takeover"
    assert taken["pending_review"]["anchor"] == "takeover_step" and taken["pending_review"]["step"] == 1
    assert [(s["tool"], s["params"], s["status"]) for s in taken["steps"]] == [
        ("restart_service", {"service": "notifications"}, "pending")
    ], "the 4th correction is the first proposed step, and it has not run"

    refused = run_json(tmp_path, "answer", run, "--instruct", "check disk usage on db-2")
    assert refused["pending_review"]["anchor"] == "takeover"
    assert refused["pending_review"]["note"].startswith("There is no service `db-2`. Known: payments, checkout")
    assert refused["steps"] == [], "the proposal it replaced is gone, and nothing was bent onto another target"
    notes = [e["payload"]["text"] for e in refused["events"] if e["kind"] == "notify"]
    assert "Replaced the proposed step 1 `restart_service` (service=notifications)" in notes[-1]

    proposed = run_json(tmp_path, "answer", run, "--instruct", "check payments")
    assert proposed["pending_review"]["anchor"] == "takeover_step" and proposed["pending_review"]["step"] == 1
    ran = run_json(tmp_path, "answer", run, "--approve")
    assert ran["pending_review"]["anchor"] == "takeover" and ran["steps"][0]["status"] == "done"
    done = run_json(tmp_path, "answer", run, "--finish")
    # only a check ran: what the corrected task asked and nobody did is named, never a plain "Done"
    partly = "🟡 Partly done — not done: restart notifications; check errors."
    assert done["status"] == "done" and done["outcome"] == partly
    shown = tandem_in(tmp_path, "show", run).stdout
    assert partly in shown and "✅ Done" not in shown and "checked payments" in shown


def test_instruct_outside_a_takeover_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    run = run_json(tmp_path, "run", "restart payments and check errors after", "--detach")["id"]
    proc = tandem_in(tmp_path, "answer", run, "--instruct", "check payments")
    assert proc.returncode == 1 and "only applies during human takeover" in proc.stderr
    assert run_json(tmp_path, "show", run, "--json")["status"] == "awaiting_review"


def test_run_of_a_task_no_tool_can_do_ends_at_once_saying_what_it_can(tmp_path: Path) -> None:
    proc = tandem_in(tmp_path, "run", "order pizza")
    assert "No tool here can do “order pizza”. " + CAN_DO in proc.stdout
    assert "Plan review" not in proc.stdout and "List every service" not in proc.stdout
    runs = json.loads(tandem_in(tmp_path, "runs", "--json").stdout)
    assert [(r["status"], r["pending_review"]) for r in runs] == [("failed", None)], "nothing waits on anyone"
