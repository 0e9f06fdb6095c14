"""The replicas benchmark drives every run through its anchors from one and from two processes
(behaviour only; no timing assertions)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.replicas import Trial, trial, verdict
from tests.pgserver import PgServer


@pytest.mark.parametrize("replicas", [1, 2])
def test_trial_with_replicas_resumes_every_run_three_times(pg_server: PgServer, tmp_path: Path, replicas: int) -> None:
    result = trial(pg_server.schema(), tmp_path, replicas, runs=4, concurrency=2)
    assert result.replicas == replicas and result.resumes == 12 and result.seconds > 0 and result.cpu > 0


def test_verdict_on_a_busy_machine_says_it_cannot_show_the_ratio() -> None:
    trials = [Trial(1, 300, 3.0, 2.9, load=6.0), Trial(2, 300, 2.0, 3.1, load=6.0)]
    lines = verdict(trials, cores=2)
    assert "1.50x" in lines[0] and "MISSED" in lines[1]
    assert "cannot show it" in lines[2]
