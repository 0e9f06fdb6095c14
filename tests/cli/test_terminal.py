"""The terminal review loop, driven through the real ``tandem run``: cancelling asks first, and the
result's Slack markup is rendered (ANSI bold on a terminal, plain text through a pipe)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TASK = "restart payments and check errors after"
TITLE = r"Done: [^\n*`\x1b]+"  # the result's first line, bold in Slack (its wording is the summary's business)


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "TANDEM_", "NO_COLOR"))}
    return {**env, "TANDEM_DB": str(tmp_path / "t.db"), "TERM": "xterm", **extra}  # no TANDEM_TOOLS: the demo


def tandem(tmp_path: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args],
        cwd=ROOT,
        env=_env(tmp_path),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_cancel_at_the_terminal_asks_first_and_no_keeps_the_run(tmp_path: Path) -> None:
    proc = tandem(tmp_path, "run", TASK, stdin="c\nn\nc\ny\n")

    run_id = proc.stdout.split("── Plan review · run ", 1)[1][:12]
    prompt = f"Cancel run {run_id}? [y/N] > "
    first, second = proc.stdout.split(prompt)[1:]
    assert first.startswith("Not cancelled; nothing changed.\n")
    assert f"── Plan review · run {run_id} ──" in first, "the same review is asked again"
    assert f"── Run {run_id}: cancelled ──" in second and "Not cancelled" not in second
    assert proc.returncode == 0, "a cancel the person asked for is what they wanted"


def test_cancel_at_the_terminal_then_end_of_input_cancels_nothing(tmp_path: Path) -> None:
    proc = tandem(tmp_path, "run", TASK, stdin="c\n")

    assert "Not cancelled; nothing changed." in proc.stdout and "Paused." in proc.stdout
    run_id = proc.stdout.split("── Plan review · run ", 1)[1][:12]
    shown = json.loads(tandem(tmp_path, "show", run_id, "--json").stdout)
    assert shown["status"] == "awaiting_review"
    assert [e["kind"] for e in shown["events"]].count("decided") == 0


def test_result_through_a_pipe_is_plain_text(tmp_path: Path) -> None:
    proc = tandem(tmp_path, "run", TASK, stdin="a\n" * 8)

    assert proc.returncode == 0, proc.stderr
    outcome = proc.stdout.rsplit("── Run ", 1)[1]
    assert re.search(rf"\n{TITLE}\n", outcome), outcome
    assert "\n1. ✅ restart_service (service=payments)\n    Restarted payments" in outcome
    assert not any(mark in proc.stdout for mark in ("*Done", "```", "`restart_service`", "\x1b["))


@pytest.mark.parametrize("no_color", [False, True])
def test_result_on_a_terminal_is_bold_unless_no_color(tmp_path: Path, no_color: bool) -> None:
    main, child = os.openpty()
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # the child closed its end
                return
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "cli.main", "run", TASK],
            cwd=ROOT,
            env=_env(tmp_path, **({"NO_COLOR": "1"} if no_color else {})),
            input=b"a\n" * 8,
            stdout=child,
            stderr=subprocess.PIPE,
            timeout=60,
        )
    finally:
        os.close(child)
        reader.join(timeout=30)
        os.close(main)

    shown = b"".join(chunks).decode()
    assert proc.returncode == 0, proc.stderr
    assert bool(re.search(rf"\x1b\[1m{TITLE}\x1b\[22m", shown)) is not no_color
    assert ("\x1b[" not in shown) is no_color and re.search(TITLE, shown)
    assert "*Done" not in shown and "```" not in shown


def test_question_at_the_terminal_is_answered_and_the_same_review_waits(tmp_path: Path) -> None:
    proc = tandem(tmp_path, "run", TASK, stdin="why restart it?\n")

    run_id = proc.stdout.split("── Plan review · run ", 1)[1][:12]
    answered = proc.stdout.split("── Plan review · run ", 1)[1]
    assert "Step 1 `restart_service` service=payments" in answered and "It has not run yet." in answered
    assert "Paused." in proc.stdout
    shown = json.loads(tandem(tmp_path, "show", run_id, "--json").stdout)
    assert shown["pending_review"]["anchor"] == "after_plan" and shown["retries"] == 0 and shown["feedback"] == []
    assert [e["kind"] for e in shown["events"]].count("question_answered") == 1


def test_number_question_at_the_terminal_refuses_words_and_takes_the_number_typed(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "cli.main", "run", "scale service payments", "--as", "alice"],
        cwd=ROOT,
        env=_env(tmp_path, TANDEM_TOOLS="tests.agent.handoff_tools", TANDEM_MODEL="offline"),
        input="twelve\n12\n",
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert "'twelve' is not a number" in proc.stderr and "The question stays open" in proc.stderr
    assert "payments scaled to 12 replicas (int)" in proc.stdout
    assert proc.returncode == 0, proc.stderr
