"""``tandem lessons``: a correction made in the terminal shows up, changes the next run's plan, and
``tandem lessons forget`` stops it (real subprocesses on a real SQLite file)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent.models import LessonUse, Review, RunState
from cli.render import review_text
from tests.cli.run import tandem_in
from tests.cli.run import tandem_ok as ok

TASK = "scale payments to 2 replicas"


def started(cwd: Path, user: str) -> dict[str, Any]:
    run: dict[str, Any] = json.loads(ok(cwd, "run", "--detach", TASK, "--as", user))
    return run


def test_lessons_cli_lists_the_correction_uses_it_and_forgets_it(tmp_path: Path) -> None:
    first = started(tmp_path, "alice")
    ok(tmp_path, "answer", first["id"], "--approve", "--as", "alice")
    ok(tmp_path, "answer", first["id"], "--say", "use 4 replicas", "--as", "alice")
    [lesson] = json.loads(ok(tmp_path, "lessons", "--json"))
    assert (lesson["tool"], lesson["before"], lesson["after"], lesson["by"]) == (
        "scale_service",
        {"replicas": 2},
        {"replicas": 4},
        "alice",
    )
    assert lesson["run_id"] == first["id"] and lesson["text"] == "use 4 replicas"
    listed = ok(tmp_path, "lessons")
    assert lesson["id"] in listed and "use replicas=4 (not 2) in `scale_service` for payments" in listed

    second = started(tmp_path, "bob")
    assert second["plan"][0]["params"] == {"service": "payments", "replicas": 4}
    applied = [{"id": lesson["id"], "text": lesson["line"], "by": "alice", "at": lesson["created_at"]}]
    assert second["lessons_applied"] == applied
    shown = json.loads(ok(tmp_path, "show", second["id"], "--json"))
    assert shown["lessons_applied"] == applied

    assert "Forgot lesson" in ok(tmp_path, "lessons", "forget", lesson["id"], "--as", "alice")
    assert "No lessons yet" in ok(tmp_path, "lessons")
    third = started(tmp_path, "bob")
    assert third["plan"][0]["params"] == {"service": "payments", "replicas": 2} and third["lessons_applied"] == []
    again = tandem_in(tmp_path, "lessons", "forget", lesson["id"], "--as", "alice")
    assert again.returncode == 1 and "unknown here or was already forgotten" in again.stderr


def test_lessons_forget_without_an_id_says_what_it_needs(tmp_path: Path) -> None:
    started(tmp_path, "alice")  # a database to read
    proc = tandem_in(tmp_path, "lessons", "forget")
    assert proc.returncode == 2 and "needs the lesson's id" in proc.stderr


def test_review_text_of_a_plan_names_the_lessons_it_used_and_how_to_forget_them() -> None:
    review = Review(id="rv1", anchor="after_plan", created_at=0.0)
    use = LessonUse(id="l1", line="use replicas=4 in `scale_service` for payments", by="alice", at=1_795_000_000.0)
    state = RunState(
        id="r1", task=TASK, requester="bob", created_at=0.0, updated_at=0.0, pending=review, lessons_applied=[use]
    )
    shown = review_text(state, review)
    assert "Using what @alice said on Nov 18" in shown and "replicas=4" in shown
    assert "tandem lessons forget l1" in shown


def test_read_only_run_shows_the_lesson_on_its_result_and_error_logs_stay_error(tmp_path: Path) -> None:
    first = json.loads(ok(tmp_path, "run", "--detach", "read payments logs", "--as", "alice"))
    ok(tmp_path, "answer", first["id"], "--say", "use level warning", "--as", "alice")
    [lesson] = json.loads(ok(tmp_path, "lessons", "--json"))

    errors = json.loads(ok(tmp_path, "run", "--detach", "read payments error logs", "--as", "bob"))
    assert errors["plan"][0]["params"]["level"] == "error" and errors["lessons_applied"] == []
    assert "Using what" not in ok(tmp_path, "show", errors["id"])

    again = json.loads(ok(tmp_path, "run", "--detach", "read payments logs", "--as", "bob"))
    assert again["plan"][0]["params"]["level"] == "warning" and [u["id"] for u in again["lessons_applied"]] == [
        lesson["id"]
    ]
    # read-only: no plan review and no result review; the done run itself says which lesson shaped it
    assert again["status"] == "done" and again["pending_review"] is None
    shown = ok(tmp_path, "show", again["id"])
    assert "✅ Done." in shown and "Using what @alice said on" in shown
    assert f"tandem lessons forget {lesson['id']}" in shown
