"""Runs, their audit events and their reviews, on SQLite.

Every transition is one transaction: the run's new state (checked against the
version it was read at), the review it answers (checked still pending), the
review it opens and its audit events.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from contextlib import nullcontext
from typing import Any

from pydantic import TypeAdapter

from agent.errors import ConcurrentUpdate, RunExists, StaleDecision, UnknownRun
from agent.messages import decided_verb
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
    PostedMessage,
    Review,
    ReviewRecord,
    Rule,
    RuleSuspension,
    RunState,
    RunSummary,
    mention,
)
from storage import lessons as lesson_rows
from storage import outbox as outbox_rows
from storage import retention
from storage.database import Database
from storage.db import unsynced
from storage.metrics import SQLITE
from storage.retention import PruneCounts
from storage.rule_rows import RULE_INSERT, RULE_SQL, rule_of, rule_values
from storage.streaks import gate_decision, gate_history_args, gate_history_sql

_state = TypeAdapter(RunState)


def _dump(state: RunState) -> str:
    return state.model_dump_json(exclude_defaults=True)


def _json(value: dict[str, Any] | None) -> str | None:
    return None if value is None else json.dumps(value, separators=(",", ":"), default=str)


class RunStore:
    """Synchronous repository; async code reaches it through :class:`storage.facade.AsyncStore`."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # --- writes -------------------------------------------------------------

    def create(
        self,
        state: RunState,
        events: Sequence[AuditEvent],
        opened: Review | None = None,
        outbox: Outbound | None = None,
        lease: LeaseClaim | None = None,
    ) -> int:
        with self.db.atomic():
            created = self.db.execute(
                "INSERT INTO runs (id, task, requester, status, channel, thread, pending_review, version,"
                " created_at, updated_at, state, lease_owner, lease_until)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
                [
                    state.id,
                    state.task,
                    state.requester,
                    state.status,
                    state.origin.scope,
                    state.origin.thread,
                    state.pending.id if state.pending else None,
                    state.created_at,
                    state.updated_at,
                    _dump(state),
                    *(lease or (None, None)),
                ],
            )
            if created.rowcount == 0:  # the id is taken: the transaction ends, writing nothing
                raise RunExists(f"Run {state.id} exists already.")
            self._write_children(state, events, opened)
            if outbox is not None:
                outbox_rows.insert(self.db, state.id, outbox[0], outbox[1], state.updated_at)
        return 1

    def commit(
        self,
        state: RunState,
        version: int,
        events: Sequence[AuditEvent],
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
        """Persist one transition. ``answered`` is (review_id, by, at, answer); ``closed`` a
        review that became moot; ``reschedule``: the pending review's deadline changed.
        ``durable=False``: the commit does not wait for fsync (``synchronous=NORMAL`` in WAL mode);
        the WAL is append-only, so the next FULL commit's fsync takes it to disk too. Its messages
        are written held, and the run's next durable commit gives them out (:func:`storage.outbox.release`).

        Raises ConcurrentUpdate when the run moved on since ``version`` was read,
        StaleDecision when the answered review is no longer pending. Either way
        nothing is written.
        """
        with unsynced(self.db) if not durable else nullcontext():
            return self._commit(
                state,
                version,
                events,
                opened,
                answered,
                closed,
                reschedule,
                rules,
                lessons,
                suspended,
                outbox,
                lease,
                durable=durable,
            )

    def _commit(
        self,
        state: RunState,
        version: int,
        events: Sequence[AuditEvent],
        opened: Review | None,
        answered: Answered | None,
        closed: str | None,
        reschedule: bool,
        rules: Sequence[Rule],
        lessons: Sequence[Lesson],
        suspended: Sequence[RuleSuspension],
        outbox: Outbound | None,
        lease: LeaseClaim | None,
        *,
        durable: bool = True,
    ) -> int:
        with self.db.atomic():
            if answered is not None:
                review_id, by, at, answer = answered
                cur = self.db.execute(
                    "UPDATE reviews SET status = 'answered', answered_at = ?, answered_by = ?, answer = ?"
                    " WHERE id = ? AND status = 'pending'",
                    [at, by, _json(answer), review_id],
                )
                if cur.rowcount != 1:
                    raise self._stale(review_id)
            cur = self.db.execute(
                "UPDATE runs SET status = ?, pending_review = ?, version = version + 1, updated_at = ?, state = ?,"
                " lease_owner = ?, lease_until = ? WHERE id = ? AND version = ?",
                [
                    state.status,
                    state.pending.id if state.pending else None,
                    state.updated_at,
                    _dump(state),
                    *(lease or (None, None)),
                    state.id,
                    version,
                ],
            )
            if cur.rowcount != 1:
                raise ConcurrentUpdate(f"Run {state.id} was updated by someone else; reload it and try again.")
            if closed is not None:
                self.db.execute("UPDATE reviews SET status = 'closed' WHERE id = ? AND status = 'pending'", [closed])
            self._write_children(state, events, opened)
            for rule in rules:
                self.add_rule(rule)
            for lesson in lessons:
                lesson_rows.add(self.db, lesson)
            for suspension in suspended:
                self.suspend_rule(suspension)
            if durable:  # what commits that did not wait for the disk held back goes out with this one
                outbox_rows.release(self.db, state.id, card_follows=outbox is not None)
            if outbox is not None:
                outbox_rows.insert(self.db, state.id, outbox[0], outbox[1], state.updated_at, held=not durable)
                if durable:
                    outbox_rows.redraw(self.db, state.id, outbox[0], state.updated_at)
            if reschedule and state.pending is not None:
                self.db.execute(
                    "UPDATE reviews SET deadline = ?, remind_at = ? WHERE id = ?",
                    [state.pending.deadline, state.pending.remind_at, state.pending.id],
                )
        return version + 1

    def _write_children(self, state: RunState, events: Iterable[AuditEvent], opened: Review | None) -> None:
        if opened is not None:
            self.db.execute(
                "INSERT INTO reviews (id, run_id, anchor, step, status, created_at, deadline, remind_at)"
                " VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)",
                [
                    opened.id,
                    state.id,
                    opened.anchor,
                    opened.step,
                    opened.created_at,
                    opened.deadline,
                    opened.remind_at,
                ],
            )
        self.db.conn.executemany(
            "INSERT INTO events (run_id, at, actor, kind, payload) VALUES (?, ?, ?, ?, ?)",
            [(state.id, e.at, e.actor, e.kind, _json(e.payload) if e.payload else None) for e in events],
        )

    def claim_delivery(self, key: str, at: float) -> bool:
        """True the first time ``key`` is seen (deduplicates retried deliveries and double clicks)."""
        cur = self.db.execute("INSERT OR IGNORE INTO deliveries (key, at) VALUES (?, ?)", [key, at])
        return cur.rowcount == 1

    def prune(self, before: float, *, dry_run: bool, batch: int = retention.BATCH) -> PruneCounts:
        """Delete runs that finished before ``before`` with all their rows, and delivery keys older
        than it, one short transaction per batch; unfinished runs are kept (:mod:`storage.retention`)."""
        return retention.prune(self.db, before, dry_run=dry_run, batch=batch)

    # --- reads --------------------------------------------------------------

    def load(self, run_id: str) -> Loaded:
        row = self.db.execute("SELECT state, version, thread FROM runs WHERE id = ?", [run_id]).fetchone()
        if row is None:
            raise UnknownRun(f"No run with id '{run_id}'. List runs with `tandem runs`.")
        return Loaded(_state.validate_json(row[0]).at_thread(row[2]), int(row[1]))

    def find(self, prefix: str) -> list[str]:
        literal = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self.db.execute("SELECT id FROM runs WHERE id LIKE ? ESCAPE '\\' LIMIT 3", [literal + "%"])
        return [r[0] for r in rows.fetchall()]

    def get_review(self, review_id: str) -> ReviewRecord | None:
        row = self.db.execute(
            "SELECT id, run_id, anchor, step, status, created_at, answered_at, answered_by, answer"
            " FROM reviews WHERE id = ?",
            [review_id],
        ).fetchone()
        if row is None:
            return None
        keys = ("id", "run_id", "anchor", "step", "status", "created_at", "answered_at", "answered_by", "answer")
        data = dict(zip(keys, row, strict=True))
        data["answer"] = json.loads(data["answer"]) if data["answer"] else None
        return ReviewRecord.model_validate(data)

    def _stale(self, review_id: str) -> StaleDecision:
        record = self.get_review(review_id)
        if record is None:
            return StaleDecision(f"Unknown review '{review_id}'.")
        if record.status == "answered":
            verb = decided_verb(record.answer)
            return StaleDecision(
                f"Already {verb} by {mention(record.answered_by or '?')}.",
                decided_by=record.answered_by,
                decided_at=record.answered_at,
            )
        return StaleDecision("This request is no longer open: the run has moved on.")

    def events(self, run_id: str) -> list[AuditEvent]:
        rows = self.db.execute(
            "SELECT at, actor, kind, payload FROM events WHERE run_id = ? ORDER BY id", [run_id]
        ).fetchall()
        return [
            AuditEvent(at=at, actor=actor, kind=kind, payload=json.loads(payload) if payload else {})
            for at, actor, kind, payload in rows
        ]

    def list_runs(self, *, status: str | None = None, channel: str | None = None, limit: int = 50) -> list[RunSummary]:
        sql = "SELECT id, task, requester, status, created_at, updated_at, channel, pending_review FROM runs"
        where, args = [], []
        if status:
            where.append("status = ?")
            args.append(status)
        if channel:
            where.append("channel = ?")
            args.append(channel)
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY created_at DESC LIMIT ?"
        rows = self.db.execute(sql, [*args, limit]).fetchall()
        return [
            RunSummary(
                id=r[0],
                task=r[1],
                requester=r[2],
                status=r[3],
                created_at=r[4],
                updated_at=r[5],
                scope=r[6],
                pending_review=r[7],
            )
            for r in rows
        ]

    def card_posted(self, run_id: str, thread: str) -> bool:
        """The run's card is posted: its thread is ``thread`` from now on (kept beside the run, whose stored
        state may be rewritten meanwhile by a transition that read it before); False when it had one."""
        cur = self.db.execute("UPDATE runs SET thread = ? WHERE id = ? AND thread IS NULL", [thread, run_id])
        return cur.rowcount == 1

    def run_for_thread(self, thread: str) -> str | None:
        row = self.db.execute("SELECT id FROM runs WHERE thread = ?", [thread]).fetchone()
        return None if row is None else str(row[0])

    def save_message(
        self, key: str, run_id: str, channel: str, ts: str, blocks: list[dict[str, Any]] | None = None
    ) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO chat_messages (key, run_id, channel, ts, blocks) VALUES (?, ?, ?, ?, ?)",
            [key, run_id, channel, ts, json.dumps(blocks) if blocks is not None else None],
        )

    def message(self, key: str) -> PostedMessage | None:
        """A message Tandem posted, by its key."""
        row = self.db.execute("SELECT channel, ts, blocks FROM chat_messages WHERE key = ?", [key]).fetchone()
        if row is None:
            return None
        return PostedMessage(channel=str(row[0]), ts=str(row[1]), blocks=json.loads(row[2]) if row[2] else [])

    def append_events(self, run_id: str, events: Sequence[AuditEvent], outbox: Outbound | None = None) -> None:
        """Audit lines that change no state (e.g. a refused decision), and the messages they cause."""
        with self.db.atomic():
            self.db.conn.executemany(
                "INSERT INTO events (run_id, at, actor, kind, payload) VALUES (?, ?, ?, ?, ?)",
                [(run_id, e.at, e.actor, e.kind, _json(e.payload) if e.payload else None) for e in events],
            )
            if outbox is not None and events:
                outbox_rows.insert(self.db, run_id, outbox[0], outbox[1], events[0].at)

    def due_reviews(self, now: float, limit: int = 500) -> list[DueReview]:
        """Pending reviews whose reminder or deadline has come."""
        # A LIMIT inside each branch keeps this flat however large an overdue backlog grows.
        rows = self.db.execute(
            "SELECT * FROM (SELECT id, run_id FROM reviews WHERE status = 'pending' AND deadline <= ? LIMIT ?)"
            " UNION SELECT * FROM (SELECT id, run_id FROM reviews WHERE status = 'pending' AND remind_at <= ? LIMIT ?)"
            " LIMIT ?",
            [now, limit, now, limit, limit],
        ).fetchall()
        return [DueReview(review_id=str(r[0]), run_id=str(r[1])) for r in rows]

    # --- channel rules ("always allow") ---------------------------------------

    def add_rule(self, rule: Rule) -> None:
        self.db.execute(RULE_INSERT, rule_values(rule))

    def rules(self, channel: str) -> list[Rule]:
        rows = self.db.execute(
            f"SELECT {RULE_SQL} FROM rules WHERE channel = ? AND revoked_at IS NULL AND suspended_at IS NULL"
            " ORDER BY created_at",
            [channel],
        ).fetchall()
        return [rule_of(r) for r in rows]

    def suspend_rule(self, suspension: RuleSuspension) -> Rule | None:
        """Suspend a rule in force: it is kept (with who, when and why) and no longer applies."""
        with self.db.atomic():
            row = self.db.execute(
                f"SELECT {RULE_SQL} FROM rules WHERE id = ? AND revoked_at IS NULL AND suspended_at IS NULL",
                [suspension.rule_id],
            ).fetchone()
            if row is None:
                return None
            self.db.execute(
                "UPDATE rules SET suspended_by = ?, suspended_at = ?, suspended_reason = ? WHERE id = ?",
                [suspension.by, suspension.at, suspension.reason, suspension.rule_id],
            )
        return rule_of(row)

    def gate_history(self, channel: str, shape: str, tool: str, limit: int) -> list[GateDecision]:
        """The latest decisions at gates of ``shape`` in ``channel`` and suspensions of ``tool``'s rules there,
        newest first (see :mod:`storage.streaks`)."""
        rows = self.db.execute(gate_history_sql(SQLITE), gate_history_args(channel, shape, tool, limit)).fetchall()
        return [gate_decision(r) for r in rows]

    def revoke_rule(self, rule_id: str, by: str, at: float) -> Rule | None:
        row = self.db.execute(f"SELECT {RULE_SQL} FROM rules WHERE id = ? AND revoked_at IS NULL", [rule_id]).fetchone()
        if row is None:
            return None
        self.db.execute("UPDATE rules SET revoked_by = ?, revoked_at = ? WHERE id = ?", [by, at, rule_id])
        return rule_of(row)

    def widen_rule(self, rule_id: str, by: str, at: float) -> Rule | None:
        """Make a scoped rule in force cover every target of its tool; None when no such rule is in force."""
        with self.db.atomic():
            found = self.db.execute(
                f"SELECT {RULE_SQL} FROM rules WHERE id = ? AND revoked_at IS NULL AND suspended_at IS NULL"
                " AND target IS NOT NULL",
                [rule_id],
            ).fetchone()
            if found is None:
                return None
            self.db.execute(
                "UPDATE rules SET target = NULL, widened_by = ?, widened_at = ? WHERE id = ?", [by, at, rule_id]
            )
        return rule_of(found).model_copy(update={"target": None, "widened_by": by, "widened_at": at})

    def version(self, run_id: str) -> int | None:
        row = self.db.execute("SELECT version FROM runs WHERE id = ?", [run_id]).fetchone()
        return None if row is None else int(row[0])

    def lease(self, run_id: str) -> Lease | None:
        """The process working on a run, if any holds it."""
        row = self.db.execute("SELECT lease_owner, lease_until FROM runs WHERE id = ?", [run_id]).fetchone()
        return None if row is None or row[0] is None else Lease(owner=str(row[0]), until=float(row[1]))

    def renew_lease(self, run_id: str, owner: str, until: float) -> bool:
        """Keep working on a run; False when someone else holds it now (this owner's claim had run out)."""
        cur = self.db.execute(
            "UPDATE runs SET lease_until = ? WHERE id = ? AND lease_owner = ?", [until, run_id, owner]
        )
        return cur.rowcount == 1

    def runs_in_flight(self) -> list[str]:
        """Runs that were working (not waiting on a person) — candidates for recovery."""
        marks = ", ".join("?" for _ in WORKING)
        rows = self.db.execute(f"SELECT id FROM runs WHERE status IN ({marks})", list(WORKING)).fetchall()
        return [r[0] for r in rows]
