"""The replicas benchmark drives every run through its anchors from one and from two processes
(behaviour only; no timing assertions)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.replicas import trial
from tests.pgserver import PgServer


@pytest.mark.parametrize("replicas", [1, 2])
def test_trial_with_replicas_resumes_every_run_three_times(pg_server: PgServer, tmp_path: Path, replicas: int) -> None:
    resumes, seconds = trial(pg_server.schema(), tmp_path, replicas, runs=4, concurrency=2)
    assert resumes == 12 and seconds > 0
