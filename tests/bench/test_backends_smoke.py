"""The backends benchmark runs its workload on both stores (behaviour only; no timing assertions)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.backends import main, run


async def test_run_two_runs_on_each_backend_times_every_resume_and_commit(tmp_path: Path) -> None:
    sqlite, postgres = await run(2, 3, tmp_path)

    assert (sqlite.backend, postgres.backend) == ("sqlite", "postgres")
    assert [len(f.resumes) for f in (sqlite, postgres)] == [6, 6]
    assert [len(f.commits) for f in (sqlite, postgres)] == [3, 3]


def test_main_prints_a_line_per_backend(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--runs", "1", "--commits", "1"]) == 0
    out = capsys.readouterr().out
    assert "sqlite     resume p50" in out and "postgres   resume p50" in out and "postgres / sqlite" in out
