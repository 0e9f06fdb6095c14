"""The report's chart: a PNG of the figure's size, and matplotlib only loaded when one is drawn."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

from agent.chart import chart_png
from agent.models.metrics import DayCount

ROOT = Path(__file__).resolve().parents[2]


def test_chart_png_of_a_week_is_a_png_of_800_by_320() -> None:
    days = [DayCount(day=f"2026-11-{d:02d}", corrections=d % 3, takeovers=d % 2) for d in range(23, 30)]
    png = chart_png(days, "Corrections and takeovers per day")
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    assert struct.unpack(">II", png[16:24]) == (800, 320)


def test_starting_the_bot_and_the_cli_loads_no_matplotlib() -> None:
    code = "import sys, cli.main, cli.serve, bot.channel; print('matplotlib' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "False"
