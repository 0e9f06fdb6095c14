"""The terminal's prompts in a pseudo-terminal, as a person types at them: nothing typed is lost or misread, a
note is news once, and a cancel the person asked for exits 0."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent.models import Review, RunState
from cli.render import review_text
from tests.cli.console import ROOT, Console, console_env

TASK = "restart payments and check errors after"
PROMPT = "or type feedback > "
REVISED = "2. read_logs(service=payments, level=error, limit=50)"


def _shown(env: dict[str, str], run_id: str) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-m", "cli.main", "show", run_id, "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    shown: dict[str, object] = json.loads(proc.stdout)
    return shown


def _choice_prompt(tty: Console) -> str:
    """What came up to the prompt asking what is wrong (1-4)."""
    return tty.expect("1-4") + tty.expect("> ")


def _ask_what_is_wrong(tty: Console) -> str:
    """At the first review, ``r``: the prompt asking what is wrong is up; the run's id."""
    run_id = _run_id(tty.expect(PROMPT))
    tty.type("r")
    _choice_prompt(tty)
    return run_id


def _run_id(screen: str) -> str:
    return screen.split("── Plan review · run ", 1)[1][:12]


def test_words_typed_at_the_choice_prompt_are_the_feedback(tmp_path: Path) -> None:
    env = console_env(tmp_path / "t.db")
    with Console(env, "run", TASK) as tty:
        run_id = _ask_what_is_wrong(tty)
        tty.type("use limit 50")
        said = tty.expect(PROMPT)
        tty.end_input()
        tty.expect("Paused.")
        assert tty.exit_code() == 0

    assert "Taken as your feedback" in said and "Feedback > " not in said
    assert "Read as: retry step 2" in said and REVISED in said
    plan = _shown(env, run_id)["plan"]
    assert isinstance(plan, list) and plan[1]["params"]["limit"] == 50


def test_a_number_at_the_feedback_prompt_is_asked_again_not_applied(tmp_path: Path) -> None:
    env = console_env(tmp_path / "t.db")
    with Console(env, "run", TASK) as tty:
        run_id = _ask_what_is_wrong(tty)
        tty.type("7")
        assert "There is no option 7" in _choice_prompt(tty)
        tty.type("4")
        tty.expect("Feedback > ")
        tty.type("4")
        assert "“4” alone is not feedback: say what should change" in tty.expect("Feedback > ")
        shown = _shown(env, run_id)
        assert shown["retries"] == 0 and shown["feedback"] == [], "nothing was applied meanwhile"
        tty.type("use limit 50")
        said = tty.expect(PROMPT)
        tty.end_input()
        assert tty.exit_code() == 0

    assert "asks for 4" not in said and "Read as: retry step 2" in said and REVISED in said
    shown = _shown(env, run_id)
    assert shown["retries"] == 1 and [f["text"] for f in shown["feedback"]] == ["use limit 50"]  # type: ignore[union-attr]


def test_enter_alone_at_the_feedback_prompt_changes_nothing(tmp_path: Path) -> None:
    env = console_env(tmp_path / "t.db")
    with Console(env, "run", TASK) as tty:
        run_id = _ask_what_is_wrong(tty)
        tty.type("2")
        tty.expect("Feedback > ")
        tty.type("")
        assert "Feedback is required to request changes; nothing changed." in tty.expect(PROMPT)
        tty.end_input()
        assert tty.exit_code() == 0

    shown = _shown(env, run_id)
    assert shown["retries"] == 0 and shown["feedback"] == []


def test_note_is_news_once_and_from_earlier_after_resume(tmp_path: Path) -> None:
    env = console_env(tmp_path / "t.db")
    note = "That changes nothing in step 2"
    with Console(env, "run", TASK) as tty:
        run_id = _run_id(tty.expect(PROMPT))
        tty.type("use limit 20")  # the limit it already has: refused, and said in the review's note
        refused = tty.expect(PROMPT)
        tty.type("why restart it?")
        answered = tty.expect(PROMPT)
        tty.end_input()
        assert tty.exit_code() == 0

    assert f"Note: {note}" in refused
    assert "It has not run yet." in answered and "── Plan review" in answered and note not in answered

    with Console(env, "resume", run_id) as tty:
        resumed = tty.expect(PROMPT)
        tty.type("")  # Enter alone: asked again, nothing drawn again
        enter = tty.expect(PROMPT)
        tty.type("why restart it?")
        again = tty.expect(PROMPT)
        tty.end_input()
        assert tty.exit_code() == 0

    assert f"Note: {note}" not in resumed
    assert "Note from " in resumed and f", before you resumed: {note}" in resumed
    assert "── Plan review" not in enter
    assert "It has not run yet." in again and again.count("── Plan review") == 1 and note not in again


def test_cancel_the_person_asked_for_exits_0(tmp_path: Path) -> None:
    env = console_env(tmp_path / "t.db")
    with Console(env, "run", TASK) as tty:
        run_id = _run_id(tty.expect(PROMPT))
        tty.type("c")
        tty.expect("? [y/N] > ")
        tty.type("y")
        tty.expect(f"── Run {run_id}: cancelled ──")
        assert tty.exit_code() == 0

    assert _shown(env, run_id)["status"] == "cancelled"


@pytest.mark.parametrize(("days_ago", "when"), [(0, r"\d\d:\d\d"), (2, r"\d{4}-\d\d-\d\d \d\d:\d\d")])
def test_note_from_before_resume_says_when_with_the_date_if_not_today(days_ago: int, when: str) -> None:
    made = time.time() - days_ago * 86400
    review = Review(id="rv1", anchor="after_plan", created_at=made, note="Step 2 revised from your feedback.")
    state = RunState(id="r1", task=TASK, requester="bob", created_at=made, updated_at=made, pending=review)

    shown = {note: review_text(state, review, note=note) for note in ("new", "earlier", "hidden")}

    assert "Note: Step 2 revised from your feedback." in shown["new"]
    pattern = rf"\nNote from {when}, before you resumed: Step 2 revised from your feedback\.\n"
    assert re.search(pattern, shown["earlier"]), shown["earlier"]
    assert "revised from your feedback" not in shown["hidden"]
