"""Runs, their audit events, reviews and rules, on PostgreSQL.

A transition is one transaction: it locks the run's row (``SELECT … FOR UPDATE``), so
commits to one run are serial across replicas, and always lock the run before its
reviews (no deadlock between them); then the answered review is checked still pending,
the version checked unchanged, and everything the transition decided written. Either
check failing raises and writes nothing, as on SQLite.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from psycopg import AsyncConnection

from agent.errors import ConcurrentUpdate, RunExists, UnknownRun
from agent.models import (
    WORKING,
    Answered,
    AuditEvent,
    DueReview,
    GateDecision,
    Lease,
    LeaseClaim,
    Lesson,
    Loaded,
    Outbound,
    Review,
    ReviewRecord,
    Rule,
    RuleSuspension,
    RunState,
    RunSummary,
)
from storage.postgres import outbox as outbox_rows
from storage.postgres import rows
from storage.postgres.base import PoolUser
from storage.postgres.lessons import add_lesson
from storage.postgres.metrics import POSTGRES
from storage.rule_rows import RULE_INSERT, RULE_SQL, rule_of, rule_values
from storage.streaks import gate_decision, gate_history_args, gate_history_sql

_REVIEW_SQL = ", ".join(rows.REVIEW_COLUMNS)
# How long a replica's claim on a due review keeps other replicas off it (the database's clock).
REVIEW_CLAIM_SECONDS = 60.0


class Runs(PoolUser):
    """The run side of :class:`storage.postgres.PgStore`."""

    claimant: str  # who this store is when it claims due reviews (one per store, so per replica)

    # --- writes -------------------------------------------------------------

    async def create(
        self,
        state: RunState,
        events: list[AuditEvent],
        opened: Review | None = None,
        outbox: Outbound | None = None,
        lease: LeaseClaim | None = None,
    ) -> int:
        channel, thread = rows.place(state)
        async with self.pool.connection() as conn, conn.pipeline(), conn.transaction():
            created = await conn.execute(
                "INSERT INTO runs (id, task, requester, status, channel, thread, pending_review, version,"
                " created_at, updated_at, state, lease_owner, lease_until)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, 1, %s, %s, %s, %s, %s) ON CONFLICT (id) DO NOTHING RETURNING id",
                [
                    state.id,
                    state.task,
                    state.requester,
                    state.status,
                    channel,
                    thread,
                    state.pending.id if state.pending else None,
                    state.created_at,
                    state.updated_at,
                    rows.dump_state(state),
                    *(lease or (None, None)),
                ],
            )
            if await created.fetchone() is None:  # the id is taken (another replica asked it at once)
                raise RunExists(f"Run {state.id} exists already.")
            await _write_children(conn, state, events, opened)
            if outbox is not None:
                await outbox_rows.insert(conn, state.id, outbox[0], outbox[1], state.updated_at)
        return 1

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
        # Pipelined: the lock and the review's check go in one round trip, the writes and COMMIT in another.
        async with self.pool.connection() as conn, conn.pipeline(), conn.transaction():
            if not durable:  # the next synchronous commit flushes the WAL past this one
                await conn.execute("SET LOCAL synchronous_commit TO OFF")
            locked = await conn.execute("SELECT version FROM runs WHERE id = %s FOR UPDATE", [state.id])
            if answered is not None:
                review_id, by, at, answer = answered
                cur = await conn.execute(
                    "UPDATE reviews SET status = 'answered', answered_at = %s, answered_by = %s, answer = %s"
                    " WHERE id = %s AND status = 'pending'",
                    [at, by, rows.to_json(answer), review_id],
                )
            row = await locked.fetchone()
            current = None if row is None else int(row[0])
            if answered is not None and cur.rowcount != 1:
                raise rows.stale(review_id, await _review(conn, review_id))
            if current != version:
                raise ConcurrentUpdate(f"Run {state.id} was updated by someone else; reload it and try again.")
            await conn.execute(
                "UPDATE runs SET status = %s, pending_review = %s, version = version + 1, updated_at = %s,"
                " state = %s, lease_owner = %s, lease_until = %s WHERE id = %s",
                [
                    state.status,
                    state.pending.id if state.pending else None,
                    state.updated_at,
                    rows.dump_state(state),
                    *(lease or (None, None)),
                    state.id,
                ],
            )
            if closed is not None:
                await conn.execute(
                    "UPDATE reviews SET status = 'closed' WHERE id = %s AND status = 'pending'", [closed]
                )
            await _write_children(conn, state, events, opened)
            for rule in rules:
                await _add_rule(conn, rule)
            for lesson in lessons:
                await add_lesson(conn, lesson)
            for suspension in suspended:
                await _suspend_rule(conn, suspension)
            if durable:  # what commits that did not wait for the disk held back goes out with this one
                await outbox_rows.release(conn, state.id, card_follows=outbox is not None)
            if outbox is not None:
                await outbox_rows.insert(conn, state.id, outbox[0], outbox[1], state.updated_at, held=not durable)
                if durable:
                    await outbox_rows.redraw(conn, state.id, outbox[0], state.updated_at)
            if reschedule and state.pending is not None:
                await conn.execute(
                    "UPDATE reviews SET deadline = %s, remind_at = %s WHERE id = %s",
                    [state.pending.deadline, state.pending.remind_at, state.pending.id],
                )
        return version + 1

    async def append_events(self, run_id: str, events: list[AuditEvent], outbox: Outbound | None = None) -> None:
        async with self.pool.connection() as conn, conn.transaction():
            await _insert_events(conn, run_id, events)
            if outbox is not None and events:
                await outbox_rows.insert(conn, run_id, outbox[0], outbox[1], events[0].at)

    async def renew_lease(self, run_id: str, owner: str, until: float) -> bool:
        async with self.pool.connection() as conn:
            cur = await conn.execute(
                "UPDATE runs SET lease_until = %s WHERE id = %s AND lease_owner = %s", [until, run_id, owner]
            )
            return cur.rowcount == 1

    # --- reads --------------------------------------------------------------

    async def load(self, run_id: str) -> Loaded:
        row = await self.fetch_one("SELECT state, version, thread FROM runs WHERE id = %s", [run_id])
        if row is None:
            raise UnknownRun(f"No run with id '{run_id}'. List runs with `tandem runs`.")
        return Loaded(rows.STATE.validate_json(row[0]).at_thread(row[2]), int(row[1]))

    async def find(self, prefix: str) -> list[str]:
        # As on SQLite: a % is no wildcard, and the match ignores ASCII case.
        literal = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        found = await self.fetch_all("SELECT id FROM runs WHERE id ILIKE %s LIMIT 3", [literal + "%"])
        return [str(r[0]) for r in found]

    async def events(self, run_id: str) -> list[AuditEvent]:
        found = await self.fetch_all(
            "SELECT at, actor, kind, payload FROM events WHERE run_id = %s ORDER BY id", [run_id]
        )
        return [
            AuditEvent(at=at, actor=actor, kind=kind, payload=json.loads(payload) if payload else {})
            for at, actor, kind, payload in found
        ]

    async def list_runs(
        self, *, status: str | None = None, channel: str | None = None, limit: int = 50
    ) -> list[RunSummary]:
        where, args = ["TRUE"], []
        if status:
            where.append("status = %s")
            args.append(status)
        if channel:
            where.append("channel = %s")
            args.append(channel)
        found = await self.fetch_all(
            f"SELECT {', '.join(rows.SUMMARY_COLUMNS)} FROM runs WHERE {' AND '.join(where)}"
            " ORDER BY created_at DESC LIMIT %s",
            [*args, limit],
        )
        return [rows.summary(r) for r in found]

    async def runs_in_flight(self) -> list[str]:
        found = await self.fetch_all("SELECT id FROM runs WHERE status = ANY(%s)", [list(WORKING)])
        return [str(r[0]) for r in found]

    async def version(self, run_id: str) -> int | None:
        row = await self.fetch_one("SELECT version FROM runs WHERE id = %s", [run_id])
        return None if row is None else int(row[0])

    async def lease(self, run_id: str) -> Lease | None:
        row = await self.fetch_one("SELECT lease_owner, lease_until FROM runs WHERE id = %s", [run_id])
        return None if row is None or row[0] is None else Lease(owner=str(row[0]), until=float(row[1]))

    async def card_posted(self, run_id: str, thread: str) -> bool:
        """As on SQLite: the run's thread from now on; False when it had one."""
        async with self.pool.connection() as conn:
            cur = await conn.execute("UPDATE runs SET thread = %s WHERE id = %s AND thread IS NULL", [thread, run_id])
            return cur.rowcount == 1

    async def run_for_thread(self, thread: str) -> str | None:
        row = await self.fetch_one("SELECT id FROM runs WHERE thread = %s", [thread])
        return None if row is None else str(row[0])

    # --- reviews ------------------------------------------------------------

    async def get_review(self, review_id: str) -> ReviewRecord | None:
        async with self.pool.connection() as conn:
            return await _review(conn, review_id)

    async def due_reviews(self, now: float, limit: int = 500) -> list[DueReview]:
        """Due pending reviews, claimed for this store for a while (by the database's clock).

        A review another store (replica) claimed and whose claim still holds is left to it, and
        rows being claimed right now are skipped (``SKIP LOCKED``), so replicas ticking together
        split the due reviews between them instead of all timing out the same ones. This store
        sees its own claims again: a tick that failed halfway is retried by its next one, and a
        replica that died leaves its claims to the others once they run out.
        """
        found = await self.fetch_all(
            "WITH due AS (SELECT id FROM reviews WHERE status = 'pending'"
            " AND (deadline <= %(now)s OR remind_at <= %(now)s)"
            " AND (claimed_by IS NULL OR claimed_by = %(me)s OR claimed_until < clock_timestamp())"
            " ORDER BY id LIMIT %(limit)s FOR UPDATE SKIP LOCKED)"
            " UPDATE reviews SET claimed_by = %(me)s,"
            " claimed_until = clock_timestamp() + make_interval(secs => %(claim)s)"
            " FROM due WHERE reviews.id = due.id RETURNING reviews.id, reviews.run_id",
            {"now": now, "me": self.claimant, "limit": limit, "claim": REVIEW_CLAIM_SECONDS},
        )
        return [DueReview(review_id=str(r[0]), run_id=str(r[1])) for r in found]

    # --- rules --------------------------------------------------------------

    async def add_rule(self, rule: Rule) -> None:
        async with self.pool.connection() as conn:
            await _add_rule(conn, rule)

    async def rules(self, channel: str) -> list[Rule]:
        found = await self.fetch_all(
            f"SELECT {RULE_SQL} FROM rules WHERE channel = %s AND revoked_at IS NULL AND suspended_at IS NULL"
            " ORDER BY created_at, id",
            [channel],
        )
        return [rule_of(r) for r in found]

    async def suspend_rule(self, suspension: RuleSuspension) -> Rule | None:
        async with self.pool.connection() as conn:
            return await _suspend_rule(conn, suspension)

    async def gate_history(self, channel: str, shape: str, tool: str, limit: int) -> list[GateDecision]:
        sql = gate_history_sql(POSTGRES).replace("?", "%s")
        found = await self.fetch_all(sql, gate_history_args(channel, shape, tool, limit))
        return [gate_decision(r) for r in found]

    async def revoke_rule(self, rule_id: str, by: str, at: float) -> Rule | None:
        row = await self.fetch_one(
            f"UPDATE rules SET revoked_by = %s, revoked_at = %s WHERE id = %s AND revoked_at IS NULL"
            f" RETURNING {RULE_SQL}",
            [by, at, rule_id],
        )
        return None if row is None else rule_of(row)

    async def widen_rule(self, rule_id: str, by: str, at: float) -> Rule | None:
        row = await self.fetch_one(
            "UPDATE rules SET target = NULL, widened_by = %s, widened_at = %s WHERE id = %s AND revoked_at IS NULL"
            f" AND suspended_at IS NULL AND target IS NOT NULL RETURNING {RULE_SQL}",
            [by, at, rule_id],
        )
        return None if row is None else rule_of(row)


async def _review(conn: AsyncConnection[Any], review_id: str) -> ReviewRecord | None:
    cur = await conn.execute(f"SELECT {_REVIEW_SQL} FROM reviews WHERE id = %s", [review_id])
    row = await cur.fetchone()
    return None if row is None else rows.review(row)


async def _suspend_rule(conn: AsyncConnection[Any], s: RuleSuspension) -> Rule | None:
    cur = await conn.execute(
        "UPDATE rules SET suspended_by = %s, suspended_at = %s, suspended_reason = %s"
        f" WHERE id = %s AND revoked_at IS NULL AND suspended_at IS NULL RETURNING {RULE_SQL}",
        [s.by, s.at, s.reason, s.rule_id],
    )
    row = await cur.fetchone()
    return None if row is None else rule_of(row)


async def _add_rule(conn: AsyncConnection[Any], rule: Rule) -> None:
    await conn.execute(RULE_INSERT.replace("?", "%s"), rule_values(rule))


async def _insert_events(conn: AsyncConnection[Any], run_id: str, events: Iterable[AuditEvent]) -> None:
    batch = [(run_id, e.at, e.actor, e.kind, rows.to_json(e.payload) if e.payload else None) for e in events]
    if batch:
        async with conn.cursor() as cur:
            await cur.executemany(
                "INSERT INTO events (run_id, at, actor, kind, payload) VALUES (%s, %s, %s, %s, %s)", batch
            )


async def _write_children(
    conn: AsyncConnection[Any], state: RunState, events: Iterable[AuditEvent], opened: Review | None
) -> None:
    if opened is not None:
        await conn.execute(
            "INSERT INTO reviews (id, run_id, anchor, step, status, created_at, deadline, remind_at)"
            " VALUES (%s, %s, %s, %s, 'pending', %s, %s, %s)",
            [opened.id, state.id, opened.anchor, opened.step, opened.created_at, opened.deadline, opened.remind_at],
        )
    await _insert_events(conn, state.id, events)
