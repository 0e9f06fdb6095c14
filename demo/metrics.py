"""The demo world's metrics: a reading at any past minute, from the service's saved samples."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Literal, assert_never

from demo.format import ms, pct
from demo.world import Sample

Metric = Literal["error_rate", "latency_p99", "cpu", "requests"]


def in_force(history: Sequence[Sample], at: float) -> Sample:
    """The newest sample taken at or before ``at`` (the oldest one if all are later)."""
    chosen = history[0]
    for sample in history:
        if sample.at > at:
            break
        chosen = sample
    return chosen


def metric_value(sample: Sample, metric: Metric) -> float:
    match metric:
        case "error_rate":
            return sample.error_rate
        case "latency_p99":
            return sample.latency_p99_ms
        case "cpu":
            return sample.cpu
        case "requests":
            return sample.requests_per_s
        case _:
            assert_never(metric)


def jitter(service: str, metric: str, at: float, step: int) -> float:
    """A steady ±5% wobble, the same for the same bucket, so past points look like real readings."""
    bucket = int(at // (60 * step))
    digest = hashlib.sha256(f"{service}:{metric}:{bucket}".encode()).digest()
    return 1 + (digest[0] / 255 - 0.5) / 10


def fmt(metric: Metric, value: float) -> str:
    match metric:
        case "error_rate":
            return pct(value)
        case "latency_p99":
            return ms(value)
        case "cpu":
            return f"{value:.0f}%"
        case "requests":
            return f"{value:,.0f} req/s"
        case _:
            assert_never(metric)
