"""The one way async code reaches SQLite.

By default all calls run on a single dedicated thread that owns the connection: SQLite
work is serialised (no lock juggling, no cross-thread connection use) and the
event loop never blocks on disk.

``inline=True`` is for a loop that does nothing but the runtime's work (a served bot's
:class:`~agent.runtime.home.RuntimeLoop`, which requests reach through
:func:`~agent.runtime.home.forwarded`): the calls run on that loop's own thread, which owns the
connection. Its work waited for the database thread anyway, one call at a time; now a call costs
no thread hand-over (about a third of a resume's time), and SQLite lets the interpreter go
while it reads, writes and syncs, so other threads (the one that acks) run meanwhile.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal, ParamSpec, TypeVar

from agent.models import (
    Answered,
    AuditEvent,
    Claim,
    Delivery,
    DueReview,
    GateDecision,
    Lease,
    LeaseClaim,
    Lesson,
    Loaded,
    Outbound,
    Outgoing,
    PostedMessage,
    PruneCounts,
    Review,
    ReviewRecord,
    Rule,
    RuleSuspension,
    RunState,
    RunSummary,
    ScheduledPost,
)
from agent.models.inbox import Inbound
from agent.models.metrics import Metrics, MetricsQuery
from agent.models.tokens import ApiToken, AskedRecord, TaskRecord
from storage import inbox, lessons, metrics, tokens
from storage.database import Database
from storage.db import connect
from storage.grouped import Grouped, each_in_one
from storage.outbox import OutboxStore
from storage.posts import PostStore
from storage.runs import RunStore

P = ParamSpec("P")
T = TypeVar("T")


def _ping(db: Database) -> None:
    db.execute("SELECT 1").fetchone()


class AsyncStore:
    """The SQLite :class:`agent.ports.Store`."""

    def __init__(self, path: str | Path, *, inline: bool = False) -> None:
        self.path = str(path)
        self._executor = None if inline else ThreadPoolExecutor(max_workers=1, thread_name_prefix="tandem-db")
        self._store: RunStore | None = None
        self._outbox: OutboxStore | None = None
        self._posts: PostStore | None = None
        self._receiving: Grouped[tuple[Inbound, float], bool] | None = None
        if self._executor is not None:
            self._receiving = Grouped(lambda items: inbox.receive_many(self.db, items), self._executor)
        self._durable: Grouped[Callable[[], Any], Any] = Grouped(
            lambda calls: each_in_one(self.db, calls), self._executor
        )

    @property
    def store(self) -> RunStore:
        if self._store is None:
            raise RuntimeError("AsyncStore.open() was not awaited")
        return self._store

    @property
    def is_open(self) -> bool:
        return self._store is not None

    @property
    def outbox(self) -> OutboxStore:
        if self._outbox is None:
            raise RuntimeError("AsyncStore.open() was not awaited")
        return self._outbox

    @property
    def posts(self) -> PostStore:
        if self._posts is None:
            raise RuntimeError("AsyncStore.open() was not awaited")
        return self._posts

    @property
    def db(self) -> Database:
        return self.store.db

    async def open(self) -> AsyncStore:
        if self._store is None:
            db = await self._call(connect, self.path)
            self._store = RunStore(db)
            self._outbox = OutboxStore(db)
            self._posts = PostStore(db)
        return self

    async def close(self) -> None:
        if self._store is not None:
            await self._call(self._store.db.close)
            self._store = None
        if self._executor is not None:
            self._executor.shutdown(wait=True)

    async def __aenter__(self) -> AsyncStore:
        return await self.open()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _call(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        if self._executor is None:  # inline: this loop's thread owns the connection
            return fn(*args, **kwargs)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, functools.partial(fn, *args, **kwargs))

    async def _together(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """A write that waits for the disk, made together with the others made meanwhile: each in a savepoint
        of one transaction, synced once (:func:`storage.grouped.each_in_one`)."""
        result: T = await self._durable(functools.partial(fn, *args, **kwargs))
        return result

    @property
    def durable_writes(self) -> tuple[int, int]:
        """(writes, transactions) made together so far: a bench and a test look at it."""
        return self._durable.written, self._durable.batches

    async def run(self, fn: Callable[[Database], T]) -> T:
        """Run ``fn(db)`` on the database thread (SQLite only: for benchmarks and tests that look at the file)."""
        return await self._call(fn, self.db)

    async def ping(self) -> None:
        """Raise when the database cannot be reached (a closed store says so)."""
        await self._call(_ping, self.db)

    # --- RunStore, async ------------------------------------------------------

    async def create(
        self,
        state: RunState,
        events: list[AuditEvent],
        opened: Review | None = None,
        outbox: Outbound | None = None,
        lease: LeaseClaim | None = None,
    ) -> int:
        return await self._together(self.store.create, state, events, opened, outbox, lease)

    async def commit(
        self,
        state: RunState,
        version: int,
        events: list[AuditEvent],
        *,
        opened: Review | None = None,
        answered: Answered | None = None,
        closed: str | None = None,
        reschedule: bool = False,
        rules: Sequence[Rule] = (),
        lessons: Sequence[Lesson] = (),
        suspended: Sequence[RuleSuspension] = (),
        outbox: Outbound | None = None,
        lease: LeaseClaim | None = None,
        durable: bool = True,
    ) -> int:
        return await (self._together if durable else self._call)(
            self.store.commit,
            state,
            version,
            events,
            opened=opened,
            answered=answered,
            closed=closed,
            reschedule=reschedule,
            rules=rules,
            lessons=lessons,
            suspended=suspended,
            outbox=outbox,
            lease=lease,
            durable=durable,
        )

    async def load(self, run_id: str) -> Loaded:
        return await self._call(self.store.load, run_id)

    async def find(self, prefix: str) -> list[str]:
        return await self._call(self.store.find, prefix)

    async def get_review(self, review_id: str) -> ReviewRecord | None:
        return await self._call(self.store.get_review, review_id)

    async def events(self, run_id: str) -> list[AuditEvent]:
        return await self._call(self.store.events, run_id)

    async def list_runs(
        self, *, status: str | None = None, channel: str | None = None, limit: int = 50
    ) -> list[RunSummary]:
        return await self._call(self.store.list_runs, status=status, channel=channel, limit=limit)

    async def version(self, run_id: str) -> int | None:
        return await self._call(self.store.version, run_id)

    async def lease(self, run_id: str) -> Lease | None:
        return await self._call(self.store.lease, run_id)

    async def renew_lease(self, run_id: str, owner: str, until: float) -> bool:
        return await self._call(self.store.renew_lease, run_id, owner, until)

    async def runs_in_flight(self) -> list[str]:
        return await self._call(self.store.runs_in_flight)

    async def claim_delivery(self, key: str, at: float) -> bool:
        return await self._together(self.store.claim_delivery, key, at)

    # --- the inbox ---------------------------------------------------------------

    @property
    def receipts_committed(self) -> int:
        """Transactions that kept inbox rows (one per group of receipts made side by side)."""
        return self._receiving.batches if self._receiving is not None else 0

    async def receive_inbound(self, item: Inbound, lease_until: float) -> bool:
        """Kept on disk before it returns; calls made side by side share one transaction."""
        if self._receiving is None:
            return inbox.receive(self.db, item, lease_until)
        return await self._receiving((item, lease_until))

    async def claim_inbound(
        self, sources: tuple[str, ...], now: float, lease_until: float, limit: int = 20
    ) -> list[Inbound]:
        return await self._call(inbox.claim, self.db, sources, now, lease_until, limit)

    async def renew_inbound(self, key: str, lease_until: float) -> None:
        await self._call(inbox.renew, self.db, key, lease_until)

    async def settle_inbound(self, key: str, status: Literal["done", "failed"], at: float) -> None:
        await self._call(inbox.settle, self.db, key, status, at)

    # --- API tokens ---------------------------------------------------------------

    async def create_token(self, token: ApiToken) -> bool:
        return await self._call(tokens.create, self.db, token)

    async def token_by_hash(self, token_hash: str) -> ApiToken | None:
        return await self._call(tokens.by_hash, self.db, token_hash)

    async def list_tokens(self) -> list[ApiToken]:
        return await self._call(tokens.listed, self.db)

    async def revoke_token(self, name: str, by: str, at: float) -> bool:
        return await self._call(tokens.revoke, self.db, name, by, at)

    async def keep_asked(self, record: AskedRecord) -> AskedRecord:
        return await self._call(tokens.keep_asked, self.db, record)

    async def asked(self, run_id: str) -> AskedRecord | None:
        return await self._call(tokens.asked, self.db, run_id)

    async def keep_task(self, record: TaskRecord) -> TaskRecord:
        return await self._call(tokens.keep_task, self.db, record)

    async def task_by_id(self, run_id: str) -> TaskRecord | None:
        return await self._call(tokens.task_by_id, self.db, run_id)

    async def task_by_message(self, token: str, message_id: str) -> TaskRecord | None:
        return await self._call(tokens.task_by_message, self.db, token, message_id)

    async def metrics(self, query: MetricsQuery) -> Metrics:
        return await self._call(metrics.collect, self.db, query)

    async def prune(self, before: float, *, dry_run: bool) -> PruneCounts:
        return await self._call(self.store.prune, before, dry_run=dry_run)

    async def run_for_thread(self, thread: str) -> str | None:
        return await self._call(self.store.run_for_thread, thread)

    async def card_posted(self, run_id: str, thread: str) -> bool:
        return await self._call(self.store.card_posted, run_id, thread)

    async def save_message(
        self, key: str, run_id: str, channel: str, ts: str, blocks: list[dict[str, Any]] | None = None
    ) -> None:
        await self._call(self.store.save_message, key, run_id, channel, ts, blocks)

    async def message(self, key: str) -> PostedMessage | None:
        return await self._call(self.store.message, key)

    async def append_events(self, run_id: str, events: list[AuditEvent], outbox: Outbound | None = None) -> None:
        await self._call(self.store.append_events, run_id, events, outbox)

    # --- the outbox ---------------------------------------------------------------

    async def due_deliveries(self, channel: str, now: float, lease: float, limit: int = 100) -> list[Delivery]:
        return await self._call(self.outbox.due, channel, now, lease, limit)

    async def claim_delivery_row(self, delivery_id: int, now: float, lease: float) -> Claim:
        return await self._together(self.outbox.claim, delivery_id, now, lease)

    async def renew_delivery_row(self, delivery_id: int, held_since: float, now: float) -> bool:
        return await self._call(self.outbox.renew, delivery_id, held_since, now)

    async def delivered(self, delivery_id: int, at: float) -> None:
        await self._call(self.outbox.sent, delivery_id, at)

    async def retry_delivery(self, delivery_id: int, attempts: int, next_at: float, error: str) -> None:
        await self._call(self.outbox.retry, delivery_id, attempts, next_at, error)

    async def fail_delivery(self, delivery_id: int, attempts: int, error: str) -> None:
        await self._call(self.outbox.fail, delivery_id, attempts, error)

    async def add_outgoing(self, run_id: str, channel: str, messages: Sequence[Outgoing], at: float) -> None:
        await self._call(self.outbox.add, run_id, channel, messages, at)

    async def release_outgoing(self, run_id: str) -> None:
        await self._call(self.outbox.release, run_id)

    async def busy_deliveries(self, channel: str, now: float) -> int:
        return await self._call(self.outbox.busy, channel, now)

    async def undelivered(self, run_id: str) -> list[Delivery]:
        return await self._call(self.outbox.undelivered, run_id)

    async def undelivered_runs(self, run_ids: Sequence[str]) -> dict[str, int]:
        return await self._call(self.outbox.undelivered_runs, run_ids)

    async def redeliver(self, run_id: str, now: float) -> int:
        return await self._call(self.outbox.redeliver, run_id, now)

    async def delivery_status(self, run_id: str, kind: str, review_id: str | None) -> str | None:
        return await self._call(self.outbox.status_of, run_id, kind, review_id)

    async def unshown_runs(self) -> list[tuple[str, str]]:
        return await self._call(self.outbox.unshown)

    # --- report posts ---------------------------------------------------------------

    async def schedule_post(self, post: ScheduledPost, now: float) -> None:
        await self._call(self.posts.schedule, post, now)

    async def due_posts(self, now: float) -> list[ScheduledPost]:
        return await self._call(self.posts.due, now)

    async def claim_post(self, key: str, outbox: Outbound, at: float) -> bool:
        return await self._call(self.posts.claim, key, outbox, at)

    async def due_reviews(self, now: float, limit: int = 500) -> list[DueReview]:
        return await self._call(self.store.due_reviews, now, limit)

    async def add_rule(self, rule: Rule) -> None:
        await self._call(self.store.add_rule, rule)

    async def rules(self, channel: str) -> list[Rule]:
        return await self._call(self.store.rules, channel)

    async def suspend_rule(self, suspension: RuleSuspension) -> Rule | None:
        return await self._call(self.store.suspend_rule, suspension)

    async def gate_history(self, channel: str, shape: str, tool: str, limit: int) -> list[GateDecision]:
        return await self._call(self.store.gate_history, channel, shape, tool, limit)

    async def revoke_rule(self, rule_id: str, by: str, at: float) -> Rule | None:
        return await self._call(self.store.revoke_rule, rule_id, by, at)

    async def widen_rule(self, rule_id: str, by: str, at: float) -> Rule | None:
        return await self._call(self.store.widen_rule, rule_id, by, at)

    # --- lessons ------------------------------------------------------------------

    async def lessons(self, scope: str | None = None, *, active: bool = True, limit: int = 100) -> list[Lesson]:
        return await self._call(lessons.listed, self.db, scope, active=active, limit=limit)

    async def find_lessons(self, scope: str, text: str, limit: int = 20) -> list[Lesson]:
        return await self._call(lessons.find, self.db, scope, text, limit)

    async def get_lesson(self, lesson_id: str) -> Lesson | None:
        return await self._call(lessons.get, self.db, lesson_id)

    async def forget_lesson(self, lesson_id: str, by: str, at: float) -> Lesson | None:
        return await self._call(_forget, self.db, lesson_id, by, at)


def _forget(db: Database, lesson_id: str, by: str, at: float) -> Lesson | None:
    with db.atomic():
        return lessons.forget(db, lesson_id, by, at)
