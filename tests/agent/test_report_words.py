"""The report in words people use: review kinds by name, waits as durations, gate rows that say what people did
(and none for a tool nobody decided on), and no verdict on a task domain from a handful of runs."""

from __future__ import annotations

from agent.config import ReportRule
from agent.models.metrics import AnchorLatency, MetricsQuery, ToolDecisions
from agent.report import build_report, report_lines
from tests.fakes.metrics import metrics_of

WEEK = MetricsQuery(since=1_000_000.0, until=1_000_000.0 + 7 * 86_400)


def _gates(approved: int, changed: int, cancelled: int, tool: str = "restart_service") -> ToolDecisions:
    total = approved + changed + cancelled
    return ToolDecisions(
        tool=tool,
        approved=approved,
        rejected=changed + cancelled,
        changed=changed,
        cancelled=cancelled,
        approval_rate=approved / total if total else 0.0,
        rejection_rate=(changed + cancelled) / total if total else 0.0,
    )


def test_report_lines_name_reviews_and_gate_decisions_in_words() -> None:
    figures = metrics_of(10, 1, 0, WEEK).model_copy(
        update={
            "approval_latency": [AnchorLatency(anchor="after_plan", approvals=3, p50=24, p90=130)],
            "tools": [_gates(0, 0, 0, "check_service"), _gates(3, 2, 0), _gates(1, 0, 1, "deploy_service")],
        }
    )
    text = "\n".join(report_lines(build_report(figures, metrics_of(0, 0, 0, WEEK.previous()), ReportRule())))
    assert "plan reviews: half within 24 s, 9 in 10 within 2 min (3 approvals)" in text
    assert "after_plan" not in text and "p50" not in text
    assert "restart_service: 3 approved, 2 sent back with changes" in text
    assert "deploy_service: 1 approved, 1 cancelled the run" in text
    assert "check_service" not in text and "rejected" not in text and "0% approved" not in text


def test_report_with_fewer_runs_than_the_minimum_says_so_instead_of_warning() -> None:
    few = build_report(metrics_of(3, 3, 3, WEEK), metrics_of(0, 0, 0, WEEK.previous()), ReportRule())
    assert few.warnings == []
    assert report_lines(few)[-1] == "Too few runs to judge: 3 this period, and warnings need at least 5."
    enough = build_report(metrics_of(5, 0, 3, WEEK), metrics_of(0, 0, 0, WEEK.previous()), ReportRule())
    assert any("does not fit this task domain" in w for w in enough.warnings)
    lowered = build_report(metrics_of(3, 3, 3, WEEK), metrics_of(0, 0, 0, WEEK.previous()), ReportRule(min_runs=3))
    assert len(lowered.warnings) == 2
