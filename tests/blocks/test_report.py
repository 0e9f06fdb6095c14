"""The report's Slack blocks: valid, with the figures, the trend and the warnings people read."""

from __future__ import annotations

from agent.config import ReportRule
from agent.models.metrics import AnchorLatency, Metrics, MetricsQuery
from agent.report import Report, build_report
from blocks.home import home_view
from blocks.limits import check_view, validate_view_with_sdk
from blocks.report import home_summary, report_blocks
from tests.blocks.states import T0, all_text, assert_valid_message
from tests.fakes.metrics import metrics_of

WEEK = MetricsQuery(since=T0, until=T0 + 7 * 86_400, channel="C1")


def figures(runs: int, corrected: int, takeovers: int, query: MetricsQuery = WEEK) -> Metrics:
    return metrics_of(
        runs,
        corrected,
        takeovers,
        query,
        retry_step=1,
        approval_latency=[AnchorLatency(anchor="after_plan", approvals=3, p50=40, p90=300)],
        timeouts={"cancel": 2, "pause": 0},
    )


def report(runs: int, corrected: int, takeovers: int) -> Report:
    return build_report(figures(runs, corrected, takeovers), figures(4, 1, 0, WEEK.previous()), ReportRule())


def test_report_blocks_show_figures_trend_and_both_warnings() -> None:
    blocks = report_blocks(report(10, 5, 2), "<#C1>")
    assert_valid_message(blocks)
    text = all_text(blocks)
    assert "*Corrected runs:* 5 · 50% (up 25 points)" in text
    assert "*Takeovers:* 2 · 20% (up 20 points)" in text
    assert "plan reviews: half within 40 s, 9 in 10 within 5 min (3 approvals)" in text
    assert "after_plan" not in text and "p50" not in text and "*Deadlines:* cancel 2" in text
    assert text.index("does not fit this task domain") < text.index("*Runs:* 10")


def test_report_blocks_without_warnings_say_so() -> None:
    text = all_text(report_blocks(report(10, 1, 0), "<#C1>"))
    assert "No warnings." in text and ":warning:" not in text


def test_home_view_with_the_summary_is_valid() -> None:
    for summary in (home_summary(report(10, 5, 2)), home_summary(report(0, 0, 0))):
        view = home_view([], [], summary)
        validate_view_with_sdk(view)
        check_view(view)
    assert "No runs started" in all_text(home_summary(report(0, 0, 0)))
