"""The report's figures as a ``data_table`` block (Block Kit, 2026): one row per figure, this period against
the one before. Slack sorts and pages it; a workspace whose API refuses the block gets the figures as text
(:func:`blocks.report.report_blocks`)."""

from __future__ import annotations

from agent.models.metrics import Metrics
from agent.report import percent
from blocks.text import Block

HEADER = ("Figure", "This period", "Previous period", "Change")


def raw_text(text: str) -> dict[str, object]:
    return {"type": "raw_text", "text": text}


def raw_number(value: float, text: str) -> dict[str, object]:
    return {"type": "raw_number", "value": value, "text": text}


def _count(name: str, now: int, before: int) -> list[dict[str, object]]:
    delta = now - before
    change = "no change" if delta == 0 else f"{'up' if delta > 0 else 'down'} {abs(delta)}"
    return [raw_text(name), raw_number(now, str(now)), raw_number(before, str(before)), raw_text(change)]


def _rate(name: str, count: tuple[int, int], rate: tuple[float, float]) -> list[dict[str, object]]:
    (now, before), (r_now, r_before) = count, rate
    points = (r_now - r_before) * 100
    change = "no change" if abs(points) < 0.5 else f"{'up' if points > 0 else 'down'} {abs(points):.0f} points"
    return [
        raw_text(name),
        raw_number(now, f"{now} ({percent(r_now)})"),  # sorted by the count, as the other rows are
        raw_number(before, f"{before} ({percent(r_before)})"),
        raw_text(change),
    ]


def figures_table(m: Metrics, p: Metrics, caption: str) -> Block:
    """Runs, corrected runs, corrections by kind, retries per run and takeovers, against the period before."""
    c, pc = m.corrections, p.corrections
    retries = [
        raw_text("Retries per run"),
        raw_number(round(m.avg_retries, 2), f"{m.avg_retries:.2f}"),
        raw_number(round(p.avg_retries, 2), f"{p.avg_retries:.2f}"),
        raw_text(
            "no change" if abs(m.avg_retries - p.avg_retries) < 0.005 else f"{m.avg_retries - p.avg_retries:+.2f}"
        ),
    ]
    rows = [
        [raw_text(h) for h in HEADER],
        _count("Runs", m.runs, p.runs),
        _rate("Corrected runs", (m.corrected_runs, p.corrected_runs), (m.correction_rate, p.correction_rate)),
        _count("Corrections: replan", c.replan, pc.replan),
        _count("Corrections: retry step", c.retry_step, pc.retry_step),
        _count("Corrections: refine output", c.refine_output, pc.refine_output),
        retries,
        _rate("Takeovers", (m.takeovers, p.takeovers), (m.takeover_rate, p.takeover_rate)),
    ]
    return {"type": "data_table", "caption": caption, "rows": rows, "page_size": len(rows) - 1}
