"""Option values the ``tandem`` parser checks as it reads them, so a bad one is a usage error (exit 2, the
option named) before anything is opened; the rule for each is the core's own."""

from __future__ import annotations

import argparse
import time

from agent.errors import ConfigError, TandemError
from agent.report import since_time

__all__ = ["UsageError", "period"]


class UsageError(TandemError):
    """The options, together, ask for something Tandem does not do; ``tandem`` exits 2, as for a bad option."""


def period(text: str) -> str:
    """``--since``: a period or a past UTC date (:func:`agent.report.since_time` says which are)."""
    try:
        since_time(text, time.time())
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text
