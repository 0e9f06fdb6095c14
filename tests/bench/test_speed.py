"""``bench.speed``: one table of every speed goal, each figure beside its baseline and judged against its goal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench import ack, speed


def _side(p50: float, rate: float, size: float) -> dict[str, Any]:
    return {"resume_p50_ms": p50, "resumes_per_s": rate, "bytes_per_paused_thread": size}


def _batch(target: str, number: int, latency: float, worked: float = 0.0) -> ack.Batch:
    return ack.Batch(target, number, [latency] * 100, [200] * 100, [], wall=1.0, drain=worked + 1, worked=worked)


def _rows(rows: list[speed.Row]) -> dict[str, speed.Row]:
    return {r.figure: r for r in rows}


def test_resume_rows_judge_the_median_of_the_rounds_ratios_against_each_langgraph_side() -> None:
    samples = {
        "tandem": [_side(1.0, 700, 1600), _side(1.2, 650, 1600)],
        # FULL: 3.2x and 2.9x a round (median 3.05x) for p50; resumes/s 3.5x and 2.6x (median 3.05x)
        "langgraph full": [_side(3.2, 200, 5000), _side(3.48, 250, 5200)],
        # defaults: 2.5x and 2.5x, under the goal
        "langgraph default": [_side(2.5, 280, 5000), _side(3.0, 260, 5000)],
    }

    rows = _rows(speed.resume_rows(samples))

    assert rows["resume p50, LangGraph synchronous=FULL"].met is True
    assert rows["resume p50, LangGraph synchronous=FULL"].ratio == "3.05x faster"
    assert rows["resumes/s, LangGraph synchronous=FULL"].met is True
    assert rows["resume p50, LangGraph its defaults"].met is False
    assert rows["resumes/s, LangGraph its defaults"].met is False
    assert rows["bytes per paused run"].met is True and rows["bytes per paused run"].ratio == "3.2x smaller"


def test_cold_rows_hold_tandem_to_a_quarter_second_and_to_half_of_langgraphs() -> None:
    quick = speed.cold_rows({"tandem": [(0.24, 0.3), (0.25, 0.3), (0.26, 0.3)], "langgraph": [(0.55, 0.7)] * 3})
    slow = speed.cold_rows({"tandem": [(0.30, 0.3)], "langgraph": [(0.55, 0.7)]})

    assert [r.met for r in quick] == [True, True]
    assert [r.met for r in slow] == [False, False]  # 0.30 s: over 0.25 s, and 0.55 of LangGraph's
    assert _rows(slow)["cold start ÷ LangGraph's"].ratio == "0.55"


def test_ack_rows_judge_p99_against_bare_bolt_and_the_slowest_rounds_work() -> None:
    ours = [_batch(ack.TANDEM, 1, 0.030, worked=1.0), _batch(ack.TANDEM, 2, 0.060, worked=3.5)]
    bare = [_batch(ack.BARE, 1, 0.025), _batch(ack.BARE, 2, 0.030)]
    result = ack.Result(batches=[*ours, *bare], approved=[], duplicates=0, db=Path("unused.db"))

    rows = _rows(speed.ack_rows(result))

    # per round 1.2x and 2.0x: median 1.6x, over 1.5x; pooled 60 ms against 30 ms
    assert rows["ack p99, median of the rounds"].ratio == "1.60x" and rows["ack p99, median of the rounds"].met is False
    assert rows["ack p99, all rounds pooled"].ratio == "2.00x"
    assert rows["work after a burst (slowest round)"].tandem == "3.50 s"
    assert rows["work after a burst (slowest round)"].met is False
    assert rows["drain after a burst (slowest round)"].met is None


def test_table_says_met_or_missed_on_every_judged_row() -> None:
    text = speed.table([speed.Row("a", "1", "2", "2x", "≥ 3x", False), speed.Row("b", "1", "", "", "", None)])

    lines = text.splitlines()
    assert lines[2].endswith("MISSED") and not lines[3].rstrip().endswith(("MET", "MISSED"))
