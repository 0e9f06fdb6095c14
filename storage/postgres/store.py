"""The PostgreSQL :class:`agent.ports.Store`: a pool of async psycopg connections shared by its repositories.

Step leases (``lease``, ``renew_lease``) keep the time the caller gives, like every other
time the loop hands the store: the loop takes its time on events (tests drive it with a
clock of their own) and the store contract returns leases as they were given. Replicas
on several hosts therefore rely on their clocks agreeing, as NTP keeps them, to well
under a lease's length; :meth:`PgStore.open` measures this host's offset from the
database's clock and warns when it is large enough to matter. Claims only the database
makes (due reviews) use the database's clock.
"""

from __future__ import annotations

import logging
import time
import uuid

import psycopg
from psycopg import AsyncConnection
from psycopg.rows import TupleRow
from psycopg_pool import AsyncConnectionPool

from agent.errors import ConfigError
from agent.models import PruneCounts
from agent.models.metrics import Metrics, MetricsQuery
from storage.postgres import metrics, retention
from storage.postgres.chat import Chat
from storage.postgres.inbox import Inbox
from storage.postgres.lessons import Lessons
from storage.postgres.outbox import Outbox
from storage.postgres.posts import Posts
from storage.postgres.runs import Runs
from storage.postgres.schema import migrate
from storage.postgres.tokens import Tokens

log = logging.getLogger("tandem.storage")

# An offset from the database's clock beyond which step leases may be misjudged across hosts.
CLOCK_SKEW_WARNING = 2.0
CONNECT_TIMEOUT = 10


class PgStore(Runs, Outbox, Posts, Chat, Lessons, Inbox, Tokens):
    """The PostgreSQL :class:`agent.ports.Store` on ``url`` (a libpq URL or conninfo string)."""

    def __init__(self, url: str, *, min_size: int = 1, max_size: int = 10) -> None:
        self.url = url
        self.min_size = min_size
        self.max_size = max_size
        self.claimant = uuid.uuid4().hex
        self._pool_or_none = None

    @property
    def is_open(self) -> bool:
        return self._pool_or_none is not None

    async def open(self) -> PgStore:
        """Connect, migrate (under the migration lock) and check this host's clock against the database's."""
        if self._pool_or_none is None:
            try:
                first = await AsyncConnection.connect(self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT)
            except psycopg.Error as exc:
                raise ConfigError(f"Cannot connect to the PostgreSQL database in TANDEM_DB: {exc}") from None
            async with first:
                applied = await migrate(first)
                skew = await clock_offset(first)
            pool: AsyncConnectionPool[AsyncConnection[TupleRow]] = AsyncConnectionPool(
                self.url,
                min_size=self.min_size,
                max_size=self.max_size,
                kwargs={"autocommit": True},
                open=False,
                name="tandem",
            )
            await pool.open(wait=True, timeout=CONNECT_TIMEOUT)
            if applied:
                log.info("database migrated: %s", ", ".join(applied))
            if abs(skew) > CLOCK_SKEW_WARNING:
                log.warning(
                    "this host's clock is %.1f s off the database's: step leases assume replicas' clocks agree",
                    skew,
                )
            self._pool_or_none = pool
        return self

    async def close(self) -> None:
        if self._pool_or_none is not None:
            pool, self._pool_or_none = self._pool_or_none, None
            await pool.close()

    async def __aenter__(self) -> PgStore:
        return await self.open()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def ping(self) -> None:
        async with self.pool.connection() as conn:
            await conn.execute("SELECT 1")

    async def prune(self, before: float, *, dry_run: bool) -> PruneCounts:
        return await retention.prune(self.pool, before, dry_run=dry_run)

    async def metrics(self, query: MetricsQuery) -> Metrics:
        return await metrics.collect(self.pool, query)


async def clock_offset(conn: AsyncConnection[TupleRow]) -> float:
    """This host's clock minus the database's, in seconds (half a round trip either way)."""
    start = time.time()
    cur = await conn.execute("SELECT extract(epoch FROM clock_timestamp())::float8")
    row = await cur.fetchone()
    end = time.time()
    assert row is not None
    return (start + end) / 2 - float(row[0])
