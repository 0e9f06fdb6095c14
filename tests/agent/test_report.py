"""The report's warnings and trend, from figures (pure: no store)."""

from __future__ import annotations

import pytest

from agent.config import ReportRule
from agent.errors import ConfigError
from agent.models.metrics import Metrics, MetricsQuery
from agent.report import build_report, report_json, report_lines, since_time
from tests.fakes.metrics import metrics_of

WEEK = MetricsQuery(since=1_000_000.0, until=1_000_000.0 + 7 * 86_400)


def figures(runs: int, corrected: int, takeovers: int, query: MetricsQuery = WEEK) -> Metrics:
    return metrics_of(runs, corrected, takeovers, query)


@pytest.mark.parametrize(
    ("runs", "corrected", "takeovers", "warned"),
    [
        (10, 3, 1, []),  # exactly at both levels: no warning
        (10, 4, 1, ["initial planning needs work"]),
        (10, 3, 2, ["does not fit this task domain"]),
        (10, 4, 2, ["does not fit this task domain", "initial planning needs work"]),
        (0, 0, 0, []),
    ],
)
def test_report_warnings_fire_only_over_the_levels(
    runs: int, corrected: int, takeovers: int, warned: list[str]
) -> None:
    report = build_report(figures(runs, corrected, takeovers), figures(0, 0, 0, WEEK.previous()), ReportRule())
    assert len(report.warnings) == len(warned)
    for sentence, words in zip(report.warnings, warned, strict=True):
        assert words in sentence


def test_report_levels_come_from_the_rule() -> None:
    rule = ReportRule(takeover_warning=0.5, correction_warning=0.05)
    report = build_report(figures(10, 1, 4), figures(0, 0, 0, WEEK.previous()), rule)
    assert report.warnings == [
        "Correction rate is 10% (1 of 10 runs), over the 5% warning level: initial planning needs work."
    ]


def test_report_trend_is_this_period_minus_the_previous_one() -> None:
    report = build_report(figures(10, 2, 1), figures(5, 3, 0, WEEK.previous()), ReportRule())
    data = report_json(report)
    assert data["trend"] == {
        "runs": 5,
        "corrected_runs": -1,
        "correction_rate": -0.4,
        "avg_retries": -0.4,
        "takeovers": 1,
        "takeover_rate": 0.1,
    }
    assert data["previous"]["until"] == data["since"]
    lines = report_lines(report)
    assert any("previous 60%, down 40 points" in line for line in lines)
    assert lines[-1] == "No warnings."


@pytest.mark.parametrize(
    ("text", "expected"),
    [("7d", 1_000_000.0 - 7 * 86_400), ("12h", 1_000_000.0 - 12 * 3600), ("1970-01-02", 86_400.0)],
)
def test_since_time_reads_periods_and_utc_dates(text: str, expected: float) -> None:
    assert since_time(text, 1_000_000.0) == expected


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("soon", "neither a period"),
        ("2099-01-01", "is not in the past"),
        ("2026-13-40", "is not a date"),
        ("-3d", "neither a period"),
    ],
)
def test_since_time_bad_input_is_a_clear_error(text: str, error: str) -> None:
    with pytest.raises(ConfigError, match=error):
        since_time(text, 1_000_000.0)
