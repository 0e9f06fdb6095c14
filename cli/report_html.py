"""``tandem report --html FILE``: one self-contained page (no scripts, no fetches) with an inline SVG chart."""

from __future__ import annotations

from html import escape

from agent.models.metrics import DayCount
from agent.report import Report, no_warnings, report_rows, report_title

__all__ = ["chart_svg", "render_html"]

CORRECTION_COLOUR = "#d97706"
TAKEOVER_COLOUR = "#b91c1c"


def chart_svg(days: list[DayCount], *, width: int = 760, height: int = 260) -> str:
    """Corrections and takeovers per day as grouped bars, with a labelled axis and a legend."""
    left, right, top, bottom = 40, 10, 30, 40
    plot_w, plot_h = width - left - right, height - top - bottom
    peak = max([1, *(d.corrections for d in days), *(d.takeovers for d in days)])
    slot = plot_w / max(1, len(days))
    bar = max(1.0, slot * 0.35)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="Corrections and takeovers per day">',
        "<title>Corrections and takeovers per day</title>",
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="#888"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#888"/>',
    ]
    for tick in sorted({0, peak // 2, peak}):
        y = top + plot_h - plot_h * tick / peak
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end">{tick}</text>')
    label_every = max(1, len(days) // 10)
    for i, day in enumerate(days):
        x = left + i * slot + (slot - 2 * bar) / 2
        for j, (count, colour, what) in enumerate(
            ((day.corrections, CORRECTION_COLOUR, "corrections"), (day.takeovers, TAKEOVER_COLOUR, "takeovers"))
        ):
            h = plot_h * count / peak
            parts.append(
                f'<rect class="{what}" x="{x + j * bar:.1f}" y="{top + plot_h - h:.1f}" width="{bar:.1f}" '
                f'height="{h:.1f}" fill="{colour}"><title>{escape(day.day)}: {count} {what}</title></rect>'
            )
        if i % label_every == 0:
            cx = left + i * slot + slot / 2
            parts.append(
                f'<text x="{cx:.1f}" y="{top + plot_h + 16}" font-size="11" text-anchor="middle">'
                f"{escape(day.day[5:])}</text>"
            )
    parts += [
        f'<rect x="{left}" y="8" width="12" height="12" fill="{CORRECTION_COLOUR}"/>',
        f'<text x="{left + 16}" y="18" font-size="12">corrections</text>',
        f'<rect x="{left + 110}" y="8" width="12" height="12" fill="{TAKEOVER_COLOUR}"/>',
        f'<text x="{left + 126}" y="18" font-size="12">takeovers</text>',
        "</svg>",
    ]
    return "\n".join(parts)


def render_html(report: Report) -> str:
    title = report_title(report)
    rows = "\n".join(
        f"<tr><th>{escape(label)}</th><td>{escape(value)}</td></tr>" for label, value in report_rows(report)
    )
    warnings = "".join(f'<li class="warning">{escape(w)}</li>' for w in report.warnings)
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{escape(title)}</title>
<style>
body {{ font: 14px/1.5 system-ui, sans-serif; margin: 2em auto; max-width: 820px; color: #222; }}
table.figures {{ border-collapse: collapse; }}
table.figures th {{ text-align: left; padding: 0.2em 1.5em 0.2em 0; vertical-align: top; white-space: nowrap; }}
table.figures td {{ padding: 0.2em 0; }}
.warning {{ color: #b91c1c; font-weight: 600; }}
</style>
</head>
<body>
<h1>{escape(title)}</h1>
<ul>{warnings or f"<li>{escape(no_warnings(report))}</li>"}</ul>
<h2>Corrections and takeovers per day (UTC)</h2>
{chart_svg(report.current.days)}
<h2>Figures</h2>
<table class="figures">
{rows}
</table>
</body>
</html>
"""
