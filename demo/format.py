"""How the demo tools write numbers and times in chat text."""

from __future__ import annotations

import time


def pct(fraction: float) -> str:
    return f"{fraction * 100:.2f}%" if fraction < 0.01 else f"{fraction * 100:.1f}%"


def ms(value: float) -> str:
    return f"{value:,.0f} ms"


def clock(at: float) -> str:
    return time.strftime("%H:%M:%S", time.gmtime(at))
