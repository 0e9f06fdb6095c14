"""How long something took or waited, as people say it: ``45 s``, ``12 min``, ``1 h 20 min``, ``3 days``."""

from __future__ import annotations


def spoken(seconds: float) -> str:
    """``seconds`` in the largest unit that keeps it readable; never ``0 min`` for a wait under a minute."""
    total = max(round(seconds), 0)
    if total < 60:
        return f"{total} s"
    minutes = total // 60
    if minutes < 60:
        return f"{minutes} min"
    hours, rest = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h" + (f" {rest} min" if rest and hours < 10 else "")
    days = hours / 24
    return f"{days:.0f} days" if days >= 10 or days == int(days) else f"{days:.1f} days"
