"""The collaboration report in Slack: ``/tandem report`` and a short section on App Home."""

from __future__ import annotations

from typing import Any

from agent.report import Report, gate_decisions, no_warnings, percent, review_waits, stamp
from blocks.figures import figures_table
from blocks.text import context, escape, header, section

Blocks = list[dict[str, Any]]


def _change(now: float, before: float) -> str:
    delta = (now - before) * 100
    if abs(delta) < 0.5:
        return "no change"
    return f"{'up' if delta > 0 else 'down'} {abs(delta):.0f} points"


def _warnings(report: Report) -> Blocks:
    return [section(f":warning: *{escape(w)}*") for w in report.warnings]


def _core(report: Report) -> list[str]:
    """The figures a table holds too: runs, corrections, retries and takeovers, with their trend."""
    m, p = report.current, report.previous
    c = m.corrections
    return [
        f"*Runs:* {m.runs} (previous period {p.runs})",
        f"*Corrected runs:* {m.corrected_runs} · {percent(m.correction_rate)} "
        f"({_change(m.correction_rate, p.correction_rate)})",
        f"*Corrections:* replan {c.replan} · retry step {c.retry_step} · refine output {c.refine_output}",
        f"*Retries per run:* {m.avg_retries:.2f}",
        f"*Takeovers:* {m.takeovers} · {percent(m.takeover_rate)} ({_change(m.takeover_rate, p.takeover_rate)})",
    ]


def _more(report: Report) -> list[str]:
    """The figures said in words: misread replies, ratings, waits, gates and deadlines (those there are)."""
    m = report.current
    lines = []
    if m.free_text_decisions:
        lines.append(f"*Replies misread:* {m.overrides} of {m.free_text_decisions} ({percent(m.misread_rate)})")
    if m.results_liked or m.results_disliked:
        lines.append(f"*Results rated:* 👍 {m.results_liked} · 👎 {m.results_disliked}")
    waits = "; ".join(escape(review_waits(x)) for x in m.approval_latency)
    if waits:
        lines.append(f"*Approval wait:* {waits}")
    gates = "; ".join(escape(said) for t in m.tools if (said := gate_decisions(t)))
    if gates:
        lines.append(f"*At the gates:* {gates}")
    timeouts = ", ".join(f"{k} {v}" for k, v in m.timeouts.items() if v)
    if timeouts:
        lines.append(f"*Deadlines:* {timeouts}")
    return lines


def report_blocks(report: Report, where: str, *, table: bool = False) -> Blocks:
    """The figures, the trend against the previous period and the warnings (``where``: trusted mrkdwn naming
    the runs' place, e.g. ``<#C0OPS>``, which Slack shows as the channel's name). ``table``: the core figures
    in a ``data_table`` block (:mod:`blocks.figures`), the rest in words below it."""
    m = report.current
    period = f"{stamp(m.query.since)} to {stamp(m.query.until)}"
    more = _more(report)
    if table:
        figures = [
            figures_table(m, report.previous, f"Tandem figures, {period}"),
            *([section("\n".join(more))] if more else []),
        ]
    else:
        figures = [section("\n".join([*_core(report), *more]))]
    blocks = [header("Tandem report"), context(f"{where} · {period}"), *_warnings(report), *figures]
    if not report.warnings:
        blocks.append(context(escape(no_warnings(report))))
    return blocks


def home_summary(report: Report) -> Blocks:
    """Two lines for App Home: the person's own runs over the period, and any warning."""
    m = report.current
    if not m.runs:
        return [section("*Your last 7 days*\n_No runs started._")]
    line = (
        f"*Your last 7 days* · {m.runs} runs · {percent(m.correction_rate)} corrected · "
        f"{percent(m.takeover_rate)} taken over · `/tandem report` in a channel for more"
    )
    return [section(line), *_warnings(report)]


def weekly_blocks(report: Report, *, late: str | None = None, manual: bool = False, table: bool = False) -> Blocks:
    """The report post of ``[report] channel``: every run (all channels), the trend against the
    period before, and, when it went out late, a line saying when it was due (``late``). ``table``: its
    figures in a ``data_table`` block."""
    where = "All channels · " + ("posted on request" if manual else "weekly report")
    blocks = report_blocks(report, where, table=table)
    blocks[0] = header("Tandem weekly report" if not manual else "Tandem report")
    if late is not None:
        blocks.insert(2, context(f"⏰ Posted late: it was due {escape(late)}, when Tandem was not running."))
    blocks.append(context("The chart below shows corrections and takeovers per day."))
    return blocks
