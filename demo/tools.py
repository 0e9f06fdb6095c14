"""The built-in demo toolset: look after five services in a simulated ops world.

Every tool reads and changes the world bound with :func:`demo.world.use_world`
and answers with short text meant to be shown in chat. Only the ``@tool``
functions live here (``load_tools`` collects those defined in this module);
their helpers are in :mod:`demo.ops`, :mod:`demo.metrics` and
:mod:`demo.format`.
"""

from __future__ import annotations

import math
import re
import time
from typing import Annotated, Literal

from pydantic import Field

from agent.errors import ToolError
from agent.models import Risk
from agent.tools import tool
from demo.format import clock, ms, pct
from demo.metrics import Metric, fmt, in_force, jitter, metric_value
from demo.ops import get_service, healthy, log_line, roll_out
from demo.world import LogLevel, Message, Sample, ServiceName, current_world

_LEVELS: dict[str, tuple[LogLevel, ...]] = {
    "all": ("info", "warning", "error"),
    "info": ("info", "warning", "error"),
    "warning": ("warning", "error"),
    "error": ("error",),
}
_VERSION = re.compile(r"v?\d+(\.\d+){1,2}([-+][0-9A-Za-z.-]+)?")
MAX_REPLICAS = 50


@tool(risk=Risk.READ, done="listed the services")
def list_services() -> str:
    """List every service with its status, version, replicas, error rate and p99 latency."""
    rows = [["SERVICE", "STATUS", "VERSION", "REPLICAS", "ERRORS", "P99"]]
    for s in current_world().services():
        rows.append([s.name, s.status, s.version, str(s.replicas), pct(s.error_rate), ms(s.latency_p99_ms)])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows)


@tool(risk=Risk.READ, done="checked {service}")
def check_service(service: ServiceName) -> str:
    """Show one service's health: status, version, replicas, error rate, latency, CPU, traffic and cache.

    Args:
        service: The service to check.
    """
    world = current_world()
    s = get_service(world, service)
    previous = f" (previous {s.previous_version})" if s.previous_version else ""
    lines = [
        f"{s.name}: {s.status.upper()}",
        f"  version      {s.version}{previous}",
        f"  replicas     {s.replicas}",
        f"  error rate   {pct(s.error_rate)}",
        f"  p99 latency  {ms(s.latency_p99_ms)}",
        f"  cpu          {s.cpu:.0f}% avg per replica",
        f"  traffic      {s.requests_per_s:,.0f} req/s",
    ]
    cache = world.get_cache(service)
    if cache is not None:
        lines.append(f"  cache        {cache.keys:,} keys, {cache.hit_rate:.0%} hit rate")
    return "\n".join(lines)


@tool(risk=Risk.READ, done="read the {service} logs")
def read_logs(
    service: ServiceName,
    level: Literal["all", "info", "warning", "error"] = "all",
    limit: Annotated[int, Field(ge=1, le=200)] = 20,
) -> str:
    """Read a service's most recent log lines, oldest first (times in UTC).

    Args:
        service: The service whose logs to read.
        level: Lowest severity to show: "warning" shows warnings and errors, "error" only errors.
        limit: How many of the newest matching lines to show (1-200).
    """
    world = current_world()
    get_service(world, service)
    lines = world.logs(service, levels=_LEVELS[level], limit=max(1, min(limit, 200)))
    which = "" if level in ("all", "info") else f" at {level} level or above"
    if not lines:
        return f"No {service} log lines{which}."
    header = f"{service} logs{which}, last {len(lines)}:"
    body = [f"{clock(line.at)} {line.level.upper():<7} {line.message}" for line in lines]
    return "\n".join([header, *body])


@tool(risk=Risk.READ, done="looked at {service}'s {metric}")
def query_metrics(
    service: ServiceName,
    metric: Metric = "error_rate",
    minutes: Annotated[int, Field(ge=1, le=1440)] = 15,
) -> str:
    """Show one metric of a service over the last minutes, as a small time series (UTC).

    Args:
        service: The service to query.
        metric: error_rate (% of requests failing), latency_p99 (ms), cpu (avg % per replica) or requests (req/s).
        minutes: How far back to look (1-1440); long windows are shown in wider buckets.
    """
    world = current_world()
    current = get_service(world, service)
    minutes = max(1, min(minutes, 1440))
    now = time.time()
    history = world.samples(service) or [Sample.of(current, now)]
    step = max(1, math.ceil(minutes / 15))
    points: list[tuple[float, float]] = []
    for back in range(minutes - step, -1, -step):
        at = now - back * 60
        value = metric_value(in_force(history, at), metric)
        points.append((at, value if back == 0 else value * jitter(service, metric, at, step)))
    width = f"{step}-minute buckets" if step > 1 else "per minute"
    values = [value for _, value in points]
    lines = [f"{service} {metric}, last {minutes} min ({width}):"]
    lines += [f"  {clock(at)[:5]}  {fmt(metric, value)}" for at, value in points]
    lines.append(f"now {fmt(metric, values[-1])} · min {fmt(metric, min(values))} · max {fmt(metric, max(values))}")
    return "\n".join(lines)


@tool(risk=Risk.WRITE, done="scaled {service} to {replicas} replicas")
def scale_service(service: ServiceName, replicas: Annotated[int, Field(ge=1, le=MAX_REPLICAS)]) -> str:
    """Change how many replicas a service runs; load spreads over the new count.

    Args:
        service: The service to scale.
        replicas: The new replica count (1-50).
    """
    if not 1 <= replicas <= MAX_REPLICAS:
        raise ToolError(f"Cannot scale {service} to {replicas} replicas: pick a count from 1 to {MAX_REPLICAS}.")
    world = current_world()
    s = get_service(world, service)
    if replicas == s.replicas:
        return f"{service} already runs {replicas} replicas; nothing changed."
    cpu = min(100.0, s.cpu * s.replicas / replicas)
    now = time.time()
    log = log_line(service, now, "info", f"Scaled from {s.replicas} to {replicas} replicas by operator")
    world.save_service(s.model_copy(update={"replicas": replicas, "cpu": cpu}), at=now, logs=[log])
    note = "; watch for CPU saturation" if cpu >= 85 else ""
    return f"Scaled {service} from {s.replicas} to {replicas} replicas; average CPU {s.cpu:.0f}% → {cpu:.0f}%{note}."


@tool(risk=Risk.EXEC, done="restarted {service}")
def restart_service(service: ServiceName) -> str:
    """Restart every replica of a service (rolling); clears stuck connections and other transient faults.

    Args:
        service: The service to restart.
    """
    world = current_world()
    s = get_service(world, service)
    now = time.time()
    fresh = healthy(s)
    logs = [
        log_line(service, now, "info", f"Rolling restart requested by operator: {s.replicas} replicas"),
        log_line(service, now, "info", f"{service} {s.version} started on {s.replicas}/{s.replicas} replicas; ready"),
    ]
    world.save_service(fresh, at=now, logs=logs)
    return (
        f"Restarted {service} ({s.replicas} replicas): status {s.status} → {fresh.status}, "
        f"error rate {pct(s.error_rate)} → {pct(fresh.error_rate)}, "
        f"p99 {ms(s.latency_p99_ms)} → {ms(fresh.latency_p99_ms)}."
    )


@tool(risk=Risk.DEPLOY, done="deployed {service} {version}")
def deploy_service(service: ServiceName, version: str) -> str:
    """Roll out a version of a service to all its replicas; the running version is kept for rollback.

    Args:
        service: The service to deploy.
        version: The release to roll out, like 2.4.2.
    """
    version = version.strip().removeprefix("v")
    if not _VERSION.fullmatch(version):
        raise ToolError(f"'{version}' is not a release version; give one like 2.4.2.")
    world = current_world()
    s = get_service(world, service)
    if version == s.version:
        raise ToolError(f"{service} already runs {version}; use restart_service to restart it.")
    return roll_out(world, s, version, f"Deployed {service} {version} (was {s.version})")


@tool(risk=Risk.DEPLOY, done="rolled {service} back")
def rollback_service(service: ServiceName) -> str:
    """Roll a service back to the version it ran before its last deploy.

    Args:
        service: The service to roll back.
    """
    world = current_world()
    s = get_service(world, service)
    if s.previous_version is None:
        raise ToolError(
            f"{service} has no previous version to roll back to (it runs {s.version}); "
            "deploy a specific version with deploy_service instead."
        )
    return roll_out(world, s, s.previous_version, f"Rolled {service} back to {s.previous_version} from {s.version}")


@tool
def drop_cache(service: ServiceName) -> str:
    """Drop a service's cache; it refills from the backing store as requests come in.

    Args:
        service: The service whose cache to drop.
    """
    world = current_world()
    get_service(world, service)
    cache = world.get_cache(service)
    if cache is None:
        raise ToolError(f"{service} has no cache to drop.")
    if cache.keys == 0:
        return f"The {service} cache is already empty; nothing to drop."
    now = time.time()
    log = log_line(service, now, "warning", f"Cache dropped by operator: {cache.keys:,} keys evicted")
    world.save_cache(cache.model_copy(update={"keys": 0, "hit_rate": 0.0, "dropped_at": now}), logs=[log])
    return (
        f"Dropped the {service} cache ({cache.keys:,} keys, hit rate was {cache.hit_rate:.0%}). "
        "It refills as requests come in; expect higher latency for a few minutes."
    )


@tool
def send_message(channel: str, text: str) -> str:
    """Send a message to a chat channel, e.g. to tell the on-call channel what was done.

    Args:
        channel: The channel to post in, like #payments-oncall.
        text: The message to send.
    """
    channel, text = channel.strip(), text.strip()
    if not channel or not text:
        raise ToolError("A message needs both a channel (like #ops) and some text.")
    current_world().send(Message(channel=channel, text=text, at=time.time()))
    preview = text if len(text) <= 80 else text[:79] + "…"
    return f"Sent to {channel}: {preview}"
