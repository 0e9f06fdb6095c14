"""The collaboration report: a period's metrics, the period before it, and the warnings they call for.

Pure: the figures come in (``Store.metrics`` for both periods), the report goes out as a model,
as the stable JSON of ``tandem report --json`` (:func:`report_json`) and as plain lines
(:func:`report_lines`). Channels render the same :class:`Report`.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from pydantic import ConfigDict

from agent.config import ReportRule, parse_duration
from agent.errors import ConfigError
from agent.models.base import Model
from agent.models.metrics import Metrics

__all__ = ["Report", "build_report", "percent", "report_json", "report_lines", "since_time", "stamp"]


class Report(Model):
    model_config = ConfigDict(extra="forbid", frozen=True)

    current: Metrics
    previous: Metrics
    warnings: list[str]


def percent(rate: float) -> str:
    return f"{rate * 100:.0f}%"


def stamp(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d %H:%M UTC")


def _warnings(m: Metrics, rule: ReportRule) -> list[str]:
    out: list[str] = []
    if m.runs and m.takeover_rate > rule.takeover_warning:
        out.append(
            f"Takeover rate is {percent(m.takeover_rate)} ({m.takeovers} of {m.runs} runs), over the "
            f"{percent(rule.takeover_warning)} warning level: the agent does not fit this task domain."
        )
    if m.runs and m.correction_rate > rule.correction_warning:
        out.append(
            f"Correction rate is {percent(m.correction_rate)} ({m.corrected_runs} of {m.runs} runs), over the "
            f"{percent(rule.correction_warning)} warning level: initial planning needs work."
        )
    return out


def build_report(current: Metrics, previous: Metrics, rule: ReportRule) -> Report:
    """``previous`` is the period of equal length before ``current`` (``MetricsQuery.previous``)."""
    return Report(current=current, previous=previous, warnings=_warnings(current, rule))


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


_TREND = ("runs", "corrected_runs", "correction_rate", "avg_retries", "takeovers", "takeover_rate")


def report_json(report: Report) -> dict[str, Any]:
    """The stable JSON: the period's figures at the top level, then ``previous``, ``trend``
    (this period minus the previous one) and ``warnings``. Times are Unix seconds and ISO text."""
    m, p = report.current, report.previous
    q = m.query
    data: dict[str, Any] = {
        "since": q.since,
        "until": q.until,
        "period": f"{stamp(q.since)} to {stamp(q.until)}",
        "channel": q.channel,
        "requester": q.requester,
        "tool": q.tool,
    }
    data.update(m.model_dump(mode="json", exclude={"query"}))
    data["corrections"]["total"] = m.corrections.total
    data["previous"] = {
        "since": p.query.since,
        "until": p.query.until,
        **{key: getattr(p, key) for key in _TREND},
        "corrections": p.corrections.model_dump(),
    }
    data["trend"] = {key: getattr(m, key) - getattr(p, key) for key in _TREND}
    data["warnings"] = list(report.warnings)
    rounded: dict[str, Any] = _rounded(data)
    return rounded


def _change(now: float, before: float, *, rate: bool) -> str:
    delta = now - before
    if abs(delta) < 1e-9:
        return "no change"
    if rate:
        return f"{'up' if delta > 0 else 'down'} {abs(delta) * 100:.0f} points"
    return f"{'up' if delta > 0 else 'down'} {abs(delta):g}"


def _seconds(value: float | None) -> str:
    if value is None:
        return "—"
    if value < 120:
        return f"{value:.0f} s"
    if value < 7200:
        return f"{value / 60:.1f} min"
    return f"{value / 3600:.1f} h"


def report_lines(report: Report) -> list[str]:
    """The report as plain text lines (the terminal; a chat message builds its own layout)."""
    m, p = report.current, report.previous
    where = [f"{k} {v}" for k, v in (("channel", m.query.channel), ("requester", m.query.requester)) if v]
    where += [f"tool {m.query.tool}"] if m.query.tool else []
    head = f"Tandem report, {stamp(m.query.since)} to {stamp(m.query.until)}"
    lines = [head + (f" ({', '.join(where)})" if where else ""), ""]
    c = m.corrections
    lines += [
        f"Runs                {m.runs}  (previous period {p.runs}, {_change(m.runs, p.runs, rate=False)})",
        f"Corrected runs      {m.corrected_runs}  ({percent(m.correction_rate)}; previous "
        f"{percent(p.correction_rate)}, {_change(m.correction_rate, p.correction_rate, rate=True)})",
        f"Corrections         {c.total}: replan {c.replan}, retry step {c.retry_step}, refine output {c.refine_output}",
        f"Retries per run     {m.avg_retries:.2f}  (previous {p.avg_retries:.2f})",
        f"Takeovers           {m.takeovers}  ({percent(m.takeover_rate)}; previous "
        f"{percent(p.takeover_rate)}, {_change(m.takeover_rate, p.takeover_rate, rate=True)})",
        f"Correction → review {_seconds(m.correction_to_review)} on average",
    ]
    for lat in m.approval_latency:
        lines.append(
            f"Approval wait       {lat.anchor}: p50 {_seconds(lat.p50)}, p90 {_seconds(lat.p90)} ({lat.approvals})"
        )
    for t in m.tools:
        lines.append(
            f"Gate decisions      {t.tool}: {t.approved} approved, {t.rejected} rejected "
            f"({percent(t.approval_rate)} approved)"
        )
    timeouts = ", ".join(f"{k} {v}" for k, v in m.timeouts.items() if v) or "none"
    lines.append(f"Deadlines           {timeouts}; reminders {m.reminders}")
    lines.append(
        f"Read from words     {m.free_text_decisions} decisions, {m.overrides} 'Not what I meant' "
        f"(misread rate {percent(m.misread_rate)})"
    )
    lines.append(f"Results rated       👍 {m.results_liked}  👎 {m.results_disliked}")
    tokens = f", {m.tokens_per_run:.0f} tokens per run" if m.tokens_per_run is not None else ""
    lines.append(f"Model calls         {m.model_calls} ({m.model_calls_per_run:.1f} per run{tokens})")
    lines.append("")
    lines += [f"Warning: {w}" for w in report.warnings] or ["No warnings."]
    return lines


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2})?)?")


FORMS = "give a period (7d, 30d, 12h) or a past UTC date (2026-11-20)"
"""What a report's period may be, said after what was wrong with one."""


def since_time(text: str, now: float) -> float:
    """When a report starts: ``7d``, ``30d``, ``12h`` (that long before ``now``), or a UTC date
    ``2026-11-20`` (or a date and time); ConfigError saying what is wrong otherwise."""
    value = text.strip()
    if _DATE.fullmatch(value):
        try:
            moment = datetime.fromisoformat(value).replace(tzinfo=UTC)
        except ValueError as exc:
            raise ConfigError(f"{value!r} is not a date ({exc}); {FORMS}") from None
        since = moment.timestamp()
    else:
        try:
            since = now - parse_duration(value)
        except ValueError:
            raise ConfigError(f"{value!r} is neither a period (7d, 30d, 12h) nor a date (2026-11-20)") from None
    if since >= now:
        raise ConfigError(f"{value!r} is not in the past; {FORMS}")
    return since
