"""What the demo tools do to a service in the simulated ops world: look it up, restart it, roll it out."""

from __future__ import annotations

import time

from agent.errors import ToolError
from demo.format import pct
from demo.world import SERVICE_NAMES, LogLevel, LogLine, OpsWorld, Service, baseline


def get_service(world: OpsWorld, name: str) -> Service:
    service = world.get_service(name)
    if service is None:
        known = ", ".join(s.name for s in world.services()) or ", ".join(SERVICE_NAMES)
        raise ToolError(f"Unknown service '{name}'. Known services: {known}.")
    return service


def healthy(s: Service) -> Service:
    """``s`` after fresh replicas start: back to its normal error rate, latency and CPU."""
    normal = baseline(s.name)
    cpu = min(100.0, normal.cpu * normal.replicas / s.replicas)
    return s.model_copy(
        update={
            "status": "running",
            "error_rate": normal.error_rate,
            "latency_p99_ms": normal.latency_p99_ms,
            "cpu": cpu,
        }
    )


def roll_out(world: OpsWorld, s: Service, version: str, done: str) -> str:
    now = time.time()
    fresh = healthy(s).model_copy(update={"version": version, "previous_version": s.version})
    logs = [
        log_line(s.name, now, "info", f"Rollout of {version} started (from {s.version}), {s.replicas} replicas"),
        log_line(s.name, now, "info", f"Rollout of {version} complete: {s.replicas}/{s.replicas} replicas ready"),
    ]
    world.save_service(fresh, at=now, logs=logs)
    return f"{done} on {s.replicas} replicas; status {fresh.status}, error rate {pct(fresh.error_rate)}."


def log_line(service: str, at: float, level: LogLevel, message: str) -> LogLine:
    return LogLine(service=service, at=at, level=level, message=message)
