"""Counts people read are proper plurals ("1 step", "2 steps"), never "step(s)"."""

from __future__ import annotations

import re

import pytest

from agent.messages import plural
from agent.offline.text import apply_refinement, render_summary


@pytest.mark.parametrize(
    ("count", "noun", "many", "shown"),
    [
        (0, "step", None, "0 steps"),
        (1, "step", None, "1 step"),
        (2, "step", None, "2 steps"),
        (1, "try", "tries", "1 try"),
        (3, "try", "tries", "3 tries"),
    ],
)
def test_plural_of_count(count: int, noun: str, many: str | None, shown: str) -> None:
    assert plural(count, noun, many) == shown


@pytest.mark.parametrize(("lines", "more"), [(9, "… (1 more line)"), (10, "… (2 more lines)")])
def test_summary_of_long_result_counts_the_lines_left_out(lines: int, more: str) -> None:
    step = {"number": 1, "tool": "read_logs", "status": "done", "result": "\n".join(f"l{i}" for i in range(lines))}

    summary = render_summary("check logs", [step], [])

    assert re.search(r"\b1 step\b", summary) and "(s)" not in summary
    assert more in summary.splitlines()


@pytest.mark.parametrize(("count", "shown"), [(1, r"\b1 step\b"), (2, r"\b2 steps\b")])
def test_summary_asked_in_short_counts_steps_in_plural(count: int, shown: str) -> None:
    steps = [{"number": n, "tool": "read_logs", "status": "done", "result": "ok"} for n in range(1, count + 1)]

    refined = apply_refinement("check logs", render_summary("check logs", steps, []), "give me a summary", steps)

    assert re.search(shown, refined) and "(s)" not in refined
