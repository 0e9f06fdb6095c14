"""The report's chart as a PNG: corrections and takeovers per day, for chats that show images.

matplotlib (a dependency of the package) is imported when a chart is drawn, never at start-up,
and always with its Agg backend: no display, no GUI toolkit, safe in a server process.
"""

from __future__ import annotations

import io

from agent.models.metrics import DayCount

__all__ = ["CORRECTION_COLOUR", "TAKEOVER_COLOUR", "chart_png"]

CORRECTION_COLOUR = "#d97706"
TAKEOVER_COLOUR = "#b91c1c"


def chart_png(days: list[DayCount], title: str) -> bytes:
    """Grouped bars per UTC day (corrections, takeovers) with a legend; a PNG's bytes."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure  # a bare Figure: no pyplot state shared between threads
    from matplotlib.ticker import MaxNLocator

    figure = Figure(figsize=(8, 3.2), dpi=100)
    axes = figure.add_subplot()
    positions = list(range(len(days)))
    width = 0.38
    axes.bar(
        [x - width / 2 for x in positions],
        [d.corrections for d in days],
        width,
        label="corrections",
        color=CORRECTION_COLOUR,
    )
    axes.bar(
        [x + width / 2 for x in positions], [d.takeovers for d in days], width, label="takeovers", color=TAKEOVER_COLOUR
    )
    every = max(1, len(days) // 10)
    axes.set_xticks(positions[::every], [d.day[5:] for d in days][::every])
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_ylim(bottom=0, top=max([1, *(d.corrections for d in days), *(d.takeovers for d in days)]) * 1.15)
    axes.set_title(title, fontsize=11, loc="left")
    axes.set_xlabel("day (UTC)")
    axes.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=2, frameon=False, fontsize=9)
    for side in ("top", "right"):
        axes.spines[side].set_visible(False)
    figure.tight_layout()
    out = io.BytesIO()
    figure.savefig(out, format="png")
    return out.getvalue()
