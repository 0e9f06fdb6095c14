"""The loop benchmark runs its workload as specified (behaviour only; no timing assertions)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Literal

import pytest

from agent.models import RunState
from bench import breakdown, coldside, resumeside, speed
from bench.loop import expect_run, main, run_loop
from bench.results import BenchFailure
from bench.spawn import cold_start
from bench.workload import EXPECTED_ANCHORS


@pytest.mark.parametrize("brain", ["auto", "fixed"])
async def test_run_loop_five_runs_three_reviews_each_and_all_done(
    tmp_path: Path, brain: Literal["auto", "fixed"]
) -> None:
    result = await run_loop(5, tmp_path, brain=brain)

    assert result.reviews_per_run == {3: 5}
    assert result.runs_done == 5
    assert len(result.resumes) == 15
    assert {anchor: len(times) for anchor, times in result.resumes_by_anchor.items()} == {
        anchor: 5 for anchor in EXPECTED_ANCHORS
    }
    assert result.journal_mode == "wal"
    assert result.synchronous == 2  # FULL, as storage/db.py sets it


def test_expect_run_done_too_early_raises() -> None:
    state = RunState(id="r1", task="t", requester="me", created_at=0.0, updated_at=0.0, phase="done")

    with pytest.raises(BenchFailure, match="expected to wait at before_risky_step"):
        expect_run(state, 1)


async def test_cold_start_child_resumes_paused_run_without_heavy_packages(tmp_path: Path) -> None:
    result = await run_loop(1, tmp_path, brain="auto", extra_paused=2)

    runs = cold_start(result.db_path, result.extra_paused, result.brain, "runtime")

    assert len(runs) == 1  # the first child is a dropped warm-up
    assert runs[0].anchor == EXPECTED_ANCHORS[1]
    assert runs[0].heavy == []


def test_main_quick_run_prints_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--runs", "5", "--cold-repeats", "0"]) == 0

    out = capsys.readouterr().out
    assert "reviews per run: {3: 5}" in out
    assert "bytes on disk per paused run" in out


@pytest.mark.parametrize(
    "bench_main", [coldside.main, resumeside.main, speed.main], ids=["coldside", "resumeside", "speed"]
)
def test_side_by_side_bench_without_langgraph_interpreter_says_where_it_looked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bench_main: Callable[[list[str]], int]
) -> None:
    missing = tmp_path / "no-venv" / "bin" / "python"

    assert bench_main(["--langgraph", str(missing)]) == 2

    assert f"no LangGraph interpreter at {missing}" in capsys.readouterr().out


def test_main_json_out_writes_the_headline_figures(tmp_path: Path) -> None:
    out = tmp_path / "figures.json"

    assert main(["--runs", "5", "--cold-repeats", "0", "--brain", "fixed", "--json-out", str(out)]) == 0

    figures = json.loads(out.read_text())
    assert figures["system"] == "tandem"
    assert figures["n"] == 5 and figures["runs_done"] == 5 and figures["workload_ok"] is True
    assert figures["synchronous"] == 2
    assert figures["resume_p50_ms"] > 0 and figures["resumes_per_s"] > 0
    assert figures["bytes_per_paused_thread"] > 0


def test_resumeside_tandem_side_runs_its_own_process_and_checks_its_workload(tmp_path: Path) -> None:
    figures = resumeside.run_side("tandem", "unused", 5, tmp_path)

    assert figures["workload_ok"] is True and figures["runs_done"] == 5
    # The bench's fixed brain writes its result here, at once, as the offline model does: the deploy's result
    # goes to disk with the result's review, so it commits as the product does (4 durable commits per run).
    assert figures["durable_commits_per_resume"] == pytest.approx(4 / 3)


def test_resumeside_an_interpreter_without_langgraph_fails_its_side_saying_why(tmp_path: Path) -> None:
    with pytest.raises(BenchFailure, match="(?s)langgraph full failed.*No module named 'langgraph'"):
        resumeside.run_side("langgraph full", sys.executable, 3, tmp_path)


def test_breakdown_parts_add_up_to_the_resumes_and_name_the_durable_commits(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert breakdown.main(["--runs", "3"]) == 0

    out = capsys.readouterr().out
    assert "9 resumes (3 per run)" in out
    rows = {line.split("  ")[1].strip(): line for line in out.splitlines() if line.startswith("  ") and " ms" in line}
    assert {"load", "transition", "commit, durable", "commit, not waiting", "work", "rest", "mean resume"} <= set(rows)
    # Four durable commits per run of three resumes: the pause before the deploy, the deploy's start, the result's
    # review (which takes the deploy's outcome along: the offline model writes the result at once), the end.
    assert rows["commit, durable"].split()[-1] == "1.33"
    assert rows["commit, not waiting"].split()[-1] == "0.67"
