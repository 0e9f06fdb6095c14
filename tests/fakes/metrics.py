"""A period's figures built from three counts, for tests of what reports and cards make of them."""

from __future__ import annotations

from typing import Any

from agent.models.metrics import Corrections, Metrics, MetricsQuery


def metrics_of(
    runs: int, corrected: int, takeovers: int, query: MetricsQuery, *, retry_step: int = 0, **more: Any
) -> Metrics:
    """``runs`` runs, ``corrected`` of them corrected by a replan (and retried as often), ``takeovers`` taken
    over; the rates follow from the counts. ``more``: any other field of :class:`Metrics`."""
    return Metrics(
        query=query,
        runs=runs,
        corrected_runs=corrected,
        correction_rate=corrected / runs if runs else 0.0,
        corrections=Corrections(replan=corrected, retry_step=retry_step),
        retries=corrected,
        avg_retries=corrected / runs if runs else 0.0,
        takeovers=takeovers,
        takeover_rate=takeovers / runs if runs else 0.0,
        **more,
    )
