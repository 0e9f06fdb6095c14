"""bench.lessons replays its scenarios through the real runtime: lessons on needs fewer corrections than off."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.lessons import SCENARIOS, main, reduction, replay


async def test_bench_lessons_restart_scenario_needs_one_correction_with_lessons(tmp_path: Path) -> None:
    restart = SCENARIOS[0]
    on = await replay(restart, lessons=True, folder=tmp_path)
    off = await replay(restart, lessons=False, folder=tmp_path)
    assert off == [1] * len(restart.tasks)
    assert on == [1] + [0] * (len(restart.tasks) - 1)
    assert reduction(on, off) == 1.0


async def test_bench_lessons_prints_the_figures_per_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert await main([]) == 0
    out = capsys.readouterr().out
    assert "lessons off" in out and "from the second run on:" in out and "target" in out


async def test_bench_lessons_plan_correction_then_table_wish_keeps_the_plan_lesson(tmp_path: Path) -> None:
    both = SCENARIOS[3]
    on = await replay(both, lessons=True, folder=tmp_path)
    assert on == [2] + [1] * (len(both.tasks) - 1)  # later runs still ask for the table, never again for the logs


async def test_bench_lessons_scale_scenario_corrects_where_the_scale_is_first_shown(tmp_path: Path) -> None:
    scale = SCENARIOS[1]
    on = await replay(scale, lessons=True, folder=tmp_path)
    off = await replay(scale, lessons=False, folder=tmp_path)
    assert off == [1] * len(scale.tasks)
    assert on == [1] + [0] * (len(scale.tasks) - 1)
