"""The report card in Feishu: the figures, the trend and the warnings, in English or Chinese."""

from __future__ import annotations

from agent.config import ReportRule
from agent.models.metrics import AnchorLatency, Metrics, MetricsQuery
from agent.report import Report, build_report
from feishu.elements import CARD_LIMIT, size
from feishu.report import report_card
from tests.fakes.metrics import metrics_of
from workspace.feishu_fake import card_text

WEEK = MetricsQuery(since=1_800_000_000.0, until=1_800_000_000.0 + 7 * 86_400, channel="oc_ops")


def figures(runs: int, corrected: int, takeovers: int, query: MetricsQuery = WEEK) -> Metrics:
    return metrics_of(runs, corrected, takeovers, query, retry_step=1)


def report(runs: int, corrected: int, takeovers: int) -> Report:
    return build_report(figures(runs, corrected, takeovers), figures(4, 1, 0, WEEK.previous()), ReportRule())


def test_report_card_english_shows_trend_and_the_core_warnings_first() -> None:
    built = report_card(report(10, 5, 2), "en")
    text = card_text(built)
    assert built["schema"] == "2.0" and built["header"]["template"] == "orange"
    assert "**Corrected runs:** 5 · 50% (up 25 points)" in text and "**Takeovers:** 2 · 20% (up 20 points)" in text
    assert text.index("does not fit this task domain") < text.index("**Runs:** 10")
    assert size(built) < CARD_LIMIT


def test_report_card_chinese_words_figures_and_warnings_in_chinese() -> None:
    text = card_text(report_card(report(10, 5, 2), "zh"))
    assert "**被纠正的运行：** 5 · 50%（上升 25 个百分点）" in text
    assert "人工接管率为 20%（10 次运行中 2 次）" in text and "纠正率为 50%（10 次运行中 5 次）" in text
    assert "Takeover rate" not in text and "Correction rate" not in text


def test_report_card_without_warnings_says_so() -> None:
    built = report_card(report(10, 0, 0), "en")
    assert "No warnings." in card_text(built) and built["header"]["template"] == "blue"


def test_report_card_names_review_kinds_in_the_askers_language() -> None:
    waited = figures(10, 0, 0).model_copy(
        update={"approval_latency": [AnchorLatency(anchor="after_plan", approvals=3, p50=24, p90=130)]}
    )
    shown = build_report(waited, figures(4, 1, 0, WEEK.previous()), ReportRule())
    english, chinese = card_text(report_card(shown, "en")), card_text(report_card(shown, "zh"))
    assert "plan reviews: half within 24 s, 9 in 10 within 2 min (3 approvals)" in english
    assert "计划审核：一半在 24 s 内，九成在 2 min 内（3 次批准）" in chinese
    assert "after_plan" not in english + chinese and "p50" not in english + chinese


def test_report_card_with_too_few_runs_says_so_instead_of_warning() -> None:
    text = card_text(report_card(report(3, 3, 3), "zh"))
    assert "运行次数太少，无法判断：本周期 3 次，警告至少需要 5 次。" in text and "人工接管率" not in text
