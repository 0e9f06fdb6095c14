"""The simulated ops environment the demo tools act on.

Tools find the world at call time through :func:`current_world`; the runtime binds
one with :func:`use_world`. :class:`InMemoryWorld` is for tests; ``demo.store``
keeps the same state in SQLite. :func:`seed` lays out the same starting incident in
either: payments is degraded by an exhausted database connection pool.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Literal, Protocol, get_args

from pydantic import BaseModel, ConfigDict

from agent.errors import ToolError

ServiceName = Literal["payments", "checkout", "search", "auth", "notifications"]
SERVICE_NAMES: tuple[ServiceName, ...] = get_args(ServiceName)
ServiceStatus = Literal["running", "degraded", "down"]
LogLevel = Literal["info", "warning", "error"]


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Service(_Record):
    """A service's current state. ``error_rate`` is a fraction; ``cpu`` is average percent per replica."""

    name: str
    status: ServiceStatus
    version: str
    previous_version: str | None = None
    replicas: int
    error_rate: float
    latency_p99_ms: float
    cpu: float
    requests_per_s: float


class Sample(_Record):
    """A service's metrics as they were from ``at`` until the next sample."""

    service: str
    at: float
    error_rate: float
    latency_p99_ms: float
    cpu: float
    requests_per_s: float

    @classmethod
    def of(cls, service: Service, at: float) -> Sample:
        return cls(
            service=service.name,
            at=at,
            error_rate=service.error_rate,
            latency_p99_ms=service.latency_p99_ms,
            cpu=service.cpu,
            requests_per_s=service.requests_per_s,
        )


class LogLine(_Record):
    service: str
    at: float
    level: LogLevel
    message: str


class Cache(_Record):
    service: str
    keys: int
    hit_rate: float
    dropped_at: float | None = None


class Message(_Record):
    """A message a tool sent to a channel (the demo's outbox)."""

    channel: str
    text: str
    at: float


class OpsWorld(Protocol):
    """The simulated environment's state. Implementations store; tools decide."""

    def services(self) -> list[Service]:
        """All services, in a stable order."""
        ...

    def get_service(self, name: str) -> Service | None: ...

    def save_service(self, service: Service, *, at: float, logs: Sequence[LogLine] = ()) -> None:
        """Store the new state, a :class:`Sample` of it taken at ``at`` and the log lines, in one go."""
        ...

    def samples(self, service: str) -> list[Sample]:
        """The service's metrics history, oldest first."""
        ...

    def logs(self, service: str, *, levels: Collection[LogLevel], limit: int) -> list[LogLine]:
        """The newest ``limit`` lines at the given levels, oldest first."""
        ...

    def add_logs(self, lines: Sequence[LogLine]) -> None: ...

    def get_cache(self, service: str) -> Cache | None: ...

    def save_cache(self, cache: Cache, *, logs: Sequence[LogLine] = ()) -> None: ...

    def outbox(self) -> list[Message]:
        """Every message sent, oldest first."""
        ...

    def send(self, message: Message) -> None: ...


class InMemoryWorld:
    """An :class:`OpsWorld` held in plain Python objects (for tests and throwaway runs)."""

    def __init__(self) -> None:
        self._services: dict[str, Service] = {}
        self._samples: list[Sample] = []
        self._logs: list[LogLine] = []
        self._caches: dict[str, Cache] = {}
        self._outbox: list[Message] = []

    def services(self) -> list[Service]:
        return list(self._services.values())

    def get_service(self, name: str) -> Service | None:
        return self._services.get(name)

    def save_service(self, service: Service, *, at: float, logs: Sequence[LogLine] = ()) -> None:
        self._services[service.name] = service
        self._samples.append(Sample.of(service, at))
        self.add_logs(logs)

    def samples(self, service: str) -> list[Sample]:
        return sorted((s for s in self._samples if s.service == service), key=lambda s: s.at)

    def logs(self, service: str, *, levels: Collection[LogLevel], limit: int) -> list[LogLine]:
        matching = [line for line in self._logs if line.service == service and line.level in levels]
        matching.sort(key=lambda line: line.at)  # stable: equal times keep insertion order
        return matching[-limit:] if limit > 0 else []

    def add_logs(self, lines: Sequence[LogLine]) -> None:
        self._logs.extend(lines)

    def get_cache(self, service: str) -> Cache | None:
        return self._caches.get(service)

    def save_cache(self, cache: Cache, *, logs: Sequence[LogLine] = ()) -> None:
        self._caches[cache.service] = cache
        self.add_logs(logs)

    def outbox(self) -> list[Message]:
        return list(self._outbox)

    def send(self, message: Message) -> None:
        self._outbox.append(message)


# --- binding ---------------------------------------------------------------

_current: ContextVar[OpsWorld | None] = ContextVar("tandem_ops_world", default=None)


@contextmanager
def use_world(world: OpsWorld) -> Iterator[OpsWorld]:
    """Bind ``world`` for tools called in this context (and threads started from it with its context)."""
    token = _current.set(world)
    try:
        yield world
    finally:
        _current.reset(token)


def current_world() -> OpsWorld:
    world = _current.get()
    if world is None:
        raise ToolError("No ops world is bound; run tools through the Tandem runtime")
    return world


# --- the starting incident ---------------------------------------------------


def baseline(name: str) -> Service:
    """The service as it looks when healthy: what a restart or a fresh rollout returns it to."""
    for service in _HEALTHY:
        if service.name == name:
            return service
    raise ToolError(f"Unknown service '{name}'. Known services: {', '.join(SERVICE_NAMES)}.")


def seed(world: OpsWorld, now: float) -> None:
    """Lay out the demo's starting state, with history up to ``now`` (deterministic for a given ``now``)."""
    for healthy in _HEALTHY:
        world.save_service(healthy, at=now - 3600)
    payments = baseline("payments")
    for minutes_ago, status, error_rate, latency, cpu in _PAYMENTS_INCIDENT:
        changed = payments.model_copy(
            update={"status": status, "error_rate": error_rate, "latency_p99_ms": latency, "cpu": cpu}
        )
        world.save_service(changed, at=now - minutes_ago * 60)
    world.add_logs(
        [
            LogLine(service=service, at=now - seconds_ago, level=level, message=message)
            for service, seconds_ago, level, message in sorted(_LOGS, key=lambda entry: -entry[1])
        ]
    )
    for service, keys, hit_rate in _CACHES:
        world.save_cache(Cache(service=service, keys=keys, hit_rate=hit_rate))


def _healthy(
    name: ServiceName,
    version: str,
    previous: str | None,
    replicas: int,
    errors: float,
    p99: float,
    cpu: float,
    rps: float,
) -> Service:
    return Service(
        name=name,
        status="running",
        version=version,
        previous_version=previous,
        replicas=replicas,
        error_rate=errors,
        latency_p99_ms=p99,
        cpu=cpu,
        requests_per_s=rps,
    )


_HEALTHY: tuple[Service, ...] = (
    _healthy("payments", "2.4.1", "2.4.0", 4, 0.002, 180, 38, 420),
    _healthy("checkout", "3.12.0", "3.11.2", 6, 0.004, 240, 44, 380),
    _healthy("search", "1.8.3", "1.8.2", 8, 0.001, 95, 52, 1250),
    _healthy("auth", "5.2.0", "5.1.4", 3, 0.0005, 45, 23, 900),
    _healthy("notifications", "0.9.7", None, 2, 0.003, 310, 17, 60),
)

# minutes ago, status, error rate, p99 ms, cpu %: the pool fills up, then requests start failing.
_PAYMENTS_INCIDENT: tuple[tuple[int, ServiceStatus, float, float, float], ...] = (
    (27, "running", 0.011, 420, 52),
    (24, "degraded", 0.062, 1100, 63),
    (20, "degraded", 0.118, 1800, 68),
    (12, "degraded", 0.165, 2200, 70),
    (5, "degraded", 0.184, 2350, 71),
)

_POOL = "Connection pool exhausted (50/50 in use, {} waiting); request timed out after 2000ms"
_LOGS: tuple[tuple[ServiceName, int, LogLevel, str], ...] = (
    ("payments", 2700, "info", "Settlement batch 8812 finished: 1,204 charges reconciled in 3.2s"),
    ("payments", 1650, "warning", "Connection pool usage high: 45/50 connections in use"),
    ("payments", 1540, "warning", "Slow query: SELECT ... FROM ledger_entries WHERE account_id = ? took 4,812ms"),
    ("payments", 1440, "error", _POOL.format(12)),
    ("payments", 1200, "error", "POST /v1/charges 503: could not acquire a DB connection within 2000ms"),
    ("payments", 900, "warning", "p99 latency 2.3s is above the 500ms SLO"),
    ("payments", 720, "error", _POOL.format(37)),
    ("payments", 480, "error", "POST /v1/refunds 503: could not acquire a DB connection within 2000ms"),
    ("payments", 300, "error", "Leaked connection: held 312s by worker-3 in ledger.reconcile, never returned to pool"),
    ("payments", 130, "error", _POOL.format(41)),
    ("payments", 60, "warning", "Readiness probe /readyz slow: 1,870ms"),
    ("checkout", 3000, "info", "checkout 3.12.0 serving on 6 replicas"),
    ("checkout", 1190, "warning", "payments POST /v1/charges timed out after 2000ms; retrying (1/2)"),
    ("checkout", 540, "warning", "payments POST /v1/refunds timed out after 2000ms; retrying (1/2)"),
    ("checkout", 200, "info", "Cart cache hit rate 91% over the last 5m"),
    ("search", 2400, "info", "Index refresh complete: 2,381,004 documents in 41s"),
    ("search", 900, "info", "Shard rebalance finished: 16 shards on 8 nodes"),
    ("auth", 3300, "info", "Rotated token signing key: kid=k-2291, old key valid for 24h"),
    ("auth", 660, "warning", "Rate limit hit for client mobile-ios: 212 req/s over a 200 req/s burst"),
    ("notifications", 1800, "info", "Email batch sent: 1,820 messages in 12.4s"),
    ("notifications", 420, "warning", "Email provider throttled us: retrying 14 messages in 30s"),
)

# service, cached keys, hit rate
_CACHES: tuple[tuple[ServiceName, int, float], ...] = (
    ("payments", 48_210, 0.93),
    ("checkout", 120_544, 0.91),
    ("search", 640_112, 0.87),
    ("auth", 15_320, 0.98),
    ("notifications", 2_104, 0.99),
)
