"""``tandem answer RUN --say/--reject`` on a run that changed nothing: it reopens the run, as a thread reply would."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.run import tandem_in

CHECK = "check checkout health"


def _json(proc: Any) -> dict[str, Any]:
    assert proc.returncode == 0, proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def _done_check(cwd: Path) -> dict[str, Any]:
    run = _json(tandem_in(cwd, "run", "--detach", CHECK))
    assert run["status"] == "done" and run["pending_review"] is None, "a read-only check asks nobody"
    return run


def test_answer_say_on_done_check_refines_it_and_it_is_done_again(tmp_path: Path) -> None:
    run = _done_check(tmp_path)
    proc = tandem_in(tmp_path, "answer", run["id"], "--say", "show it as a table")
    after = _json(proc)
    assert f"Run {run['id']} reopened" in proc.stderr
    assert after["status"] == "done" and after["output"] != run["output"] and "|" in after["output"]
    shown = tandem_in(tmp_path, "show", run["id"])
    assert shown.returncode == 0 and "done" in shown.stdout and "Reopened by" in shown.stdout
    listed = tandem_in(tmp_path, "runs", "--json")
    assert [(r["id"], r["status"]) for r in json.loads(listed.stdout)] == [(run["id"], "done")], "the same status"


def test_answer_reject_with_intent_on_done_check_replans(tmp_path: Path) -> None:
    run = _done_check(tmp_path)
    after = _json(tandem_in(tmp_path, "answer", run["id"], "--reject", "check auth instead", "--intent", "replan"))
    assert after["status"] == "done" and after["retries"] == 1
    assert {s["params"].get("service") for s in after["steps"]} == {"auth"}


def test_answer_thanks_on_done_check_changes_nothing(tmp_path: Path) -> None:
    run = _done_check(tmp_path)
    proc = tandem_in(tmp_path, "answer", run["id"], "--say", "thanks, looks good")
    assert proc.returncode == 1 and "changes nothing" in proc.stderr
    again = _json(tandem_in(tmp_path, "show", run["id"], "--json"))
    assert again["status"] == "done" and again["output"] == run["output"] and again["retries"] == 0


def test_answer_say_on_cancelled_run_does_not_reopen_it(tmp_path: Path) -> None:
    run = _json(tandem_in(tmp_path, "run", "--detach", "restart payments and check errors after"))
    _json(tandem_in(tmp_path, "answer", run["id"], "--cancel"))
    proc = tandem_in(tmp_path, "answer", run["id"], "--say", "check auth instead")
    assert proc.returncode == 1 and "is cancelled, so a reply does not reopen it" in proc.stderr
    assert _json(tandem_in(tmp_path, "show", run["id"], "--json"))["status"] == "cancelled"
