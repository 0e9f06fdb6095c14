"""``tandem report`` as a person runs it: real processes on a real SQLite file, runs made by the terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
TASK = "restart payments and check errors after"


def environment(db: Path) -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("TANDEM_")}
    return {**environ, "TANDEM_DB": str(db), "TANDEM_MODEL": "offline", "PYTHONUNBUFFERED": "1"}


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return environment(tmp_path / "tandem.db")


def tandem(env: dict[str, str], *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


def as_json(env: dict[str, str], *args: str) -> dict[str, Any]:
    proc = tandem(env, *args)
    assert proc.returncode == 0, proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def approve_to_the_end(env: dict[str, str], run: dict[str, Any], who: str) -> dict[str, Any]:
    while run["pending_review"] is not None:
        review = run["pending_review"]["id"]
        run = as_json(env, "answer", run["id"], "--approve", "--review", review, "--as", who)
    return run


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """One run approved straight through; one corrected (replan) and then cancelled.
    Made once for the module: every test only reads it (``tandem report`` writes nothing)."""
    env = environment(tmp_path_factory.mktemp("runs") / "tandem.db")
    straight = approve_to_the_end(env, as_json(env, "run", TASK, "--detach", "--as", "alice"), "alice")
    assert straight["status"] == "done"
    corrected = as_json(env, "run", TASK, "--detach", "--as", "bob")
    corrected = as_json(
        env, "answer", corrected["id"], "--reject", "wrong service", "--intent", "replan", "--as", "bob"
    )
    assert corrected["pending_review"]["anchor"] == "after_plan"
    assert as_json(env, "answer", corrected["id"], "--cancel", "--as", "bob")["status"] == "cancelled"
    return env


def test_report_json_has_the_figures_and_the_correction_warning(two_runs: dict[str, str], tmp_path: Path) -> None:
    policy = tmp_path / "tandem.toml"
    policy.write_text("[report]\nmin_runs = 2\n")
    data = as_json({**two_runs, "TANDEM_CONFIG": str(policy)}, "report", "--json")
    assert (data["runs"], data["corrected_runs"], data["correction_rate"]) == (2, 1, 0.5)
    assert data["corrections"] == {"replan": 1, "retry_step": 0, "refine_output": 0, "total": 1}
    assert (data["avg_retries"], data["takeovers"], data["takeover_rate"]) == (0.5, 0, 0.0)
    assert data["warnings"] == [
        "Correction rate is 50% (1 of 2 runs), over the 30% warning level: initial planning needs work."
    ]
    assert data["previous"]["runs"] == 0 and data["trend"]["correction_rate"] == 0.5
    assert data["until"] - data["since"] == pytest.approx(7 * 86_400, abs=1)
    # the offline model planned three times (the straight run, the corrected run and its replan) and
    # summarized once
    assert data["model_calls"] == 4 and data["prompt_tokens"] is None
    # alice decides everything here: her approval of the plan approved the restart it showed, so no gate asked,
    # and the report counts no gate approval or gate wait for it
    assert [lat["anchor"] for lat in data["approval_latency"]] == ["after_plan", "before_result"]
    assert data["tools"] == []
    assert sum(day["corrections"] for day in data["days"]) == 1


def test_report_thresholds_come_from_the_policy_file(two_runs: dict[str, str], tmp_path: Path) -> None:
    policy = tmp_path / "tandem.toml"
    policy.write_text("[report]\ncorrection_warning = 0.5\ntakeover_warning = 0.0\n")
    data = as_json({**two_runs, "TANDEM_CONFIG": str(policy)}, "report", "--json")
    assert data["warnings"] == [], "50 % is not over a 50 % threshold, and no run was taken over"


def test_report_bad_threshold_names_the_key(two_runs: dict[str, str], tmp_path: Path) -> None:
    policy = tmp_path / "tandem.toml"
    policy.write_text("[report]\ntakeover_warning = 2\n")
    proc = tandem({**two_runs, "TANDEM_CONFIG": str(policy)}, "report")
    assert proc.returncode == 2 and "report.takeover_warning" in proc.stderr  # a bad policy, as for every command


def test_report_channel_filter_and_html_page_with_chart(two_runs: dict[str, str], tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    text = tandem(two_runs, "report", "--since", "30d", "--html", str(page))
    assert text.returncode == 0, text.stderr
    assert text.stdout == f"Wrote the report to {page}\n", "the page has the report; the terminal says where"
    html = page.read_text()
    assert "<tr><th>Corrected runs</th><td>1  (50%" in html and "<pre>" not in html
    assert html.startswith("<!doctype html>") and "<svg" in html and "<script" not in html
    assert html.count('class="corrections"') == 31, "one bar pair per day the 30-day window touches"
    assert ": 1 corrections</title>" in html
    assert "Too few runs to judge: 2 this period, and warnings need at least 5." in html
    assert as_json(two_runs, "report", "--json", "--channel", "C0NOWHERE")["runs"] == 0


def test_report_without_a_database_says_so_and_creates_none(env: dict[str, str], tmp_path: Path) -> None:
    proc = tandem(env, "report", cwd=tmp_path)
    assert proc.returncode == 1 and "No database at" in proc.stderr
    assert not Path(env["TANDEM_DB"]).exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("since", "says"),
    [
        ("yesterday", "'yesterday' is neither a period (7d, 30d, 12h) nor a date (2026-11-20)"),
        ("2099-01-01", "'2099-01-01' is not in the past; give a period (7d, 30d, 12h) or a past UTC date (2026-11-20)"),
        ("2026-13-40", "'2026-13-40' is not a date (month must be in 1..12); give a period (7d, 30d, 12h)"),
    ],
)
def test_report_bad_since_is_a_usage_error_saying_what_is_accepted(
    two_runs: dict[str, str], since: str, says: str
) -> None:
    proc = tandem(two_runs, "report", "--since", since)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert f"tandem report: error: argument --since: {says}" in proc.stderr
