"""Lessons stored before they were keyed by what they changed get the new key when the store opens
(SQLite and PostgreSQL alike): they still load, and a later correction of the same thing replaces them."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import psycopg

from agent.models import AuditEvent, Lesson, RunState
from agent.ports import Store
from storage.facade import AsyncStore
from storage.postgres.store import PgStore
from tests.pgserver import PgServer

T0 = 1_800_000_000.0


def _lesson(lesson_id: str, at: float, **fields: object) -> Lesson:
    data: dict[str, object] = {
        "id": lesson_id,
        "run_id": "r1",
        "scope": "C1",
        "anchor": "before_risky_step",
        "intent": "retry_step",
        "tool": "scale_service",
        "target": {"service": "payments"},
        "before": {"replicas": 2},
        "after": {"replicas": 4},
        "text": "use 4 replicas",
        "by": "U1",
        "created_at": at,
    }
    return Lesson.model_validate(data | fields)


# As a lesson was stored before: without "named", "removed" and "moved", and with the old key.
OLD_DATA = _lesson("old", T0).model_dump_json(exclude={"named", "removed", "moved"})
OLD_KEY = json.dumps(["C1", "scale_service", {"service": "payments"}, ["replicas"]], sort_keys=True)


async def _learn(store: Store, lesson: Lesson) -> None:
    """Commit ``lesson`` the way the runtime does: with a transition of its run."""
    state = RunState(id="r1", task="scale payments", requester="U1", created_at=T0, updated_at=T0)
    version = await store.create(state, [AuditEvent(at=T0, actor="U1", kind="started")])
    await store.commit(state, version, [], lessons=[lesson])


async def _rekeyed_and_replaced(store: Store) -> None:
    [old] = await store.lessons("C1")
    assert old.id == "old" and old.line == "use replicas=4 in `scale_service` for payments"
    await _learn(store, _lesson("new", T0 + 1, before={"replicas": 4}, after={"replicas": 6}))
    assert [x.id for x in await store.lessons("C1")] == ["new"]
    replaced = await store.get_lesson("old")
    assert replaced is not None and replaced.replaced_by == "new"


async def test_sqlite_lesson_stored_with_the_old_key_is_rekeyed_and_replaced_later(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    async with AsyncStore(path):
        pass
    with sqlite3.connect(path) as db:  # a lesson stored before, and the file as it was before the new key
        db.execute(
            "INSERT INTO lessons (id, scope, key, created_at, data) VALUES ('old', 'C1', ?, ?, ?)",
            [OLD_KEY, T0, OLD_DATA],
        )
        db.execute("DELETE FROM _sqlite_migrations WHERE name = 'm010_lesson_keys'")
    async with AsyncStore(path) as store:
        await _rekeyed_and_replaced(store)


async def test_postgres_lesson_stored_with_the_old_key_is_rekeyed_and_replaced_later(pg_server: PgServer) -> None:
    url = pg_server.schema()
    async with PgStore(url):
        pass
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute(
            "INSERT INTO lessons (id, scope, key, created_at, data, words) VALUES ('old', 'C1', %s, %s, %s, %s)",
            [OLD_KEY, T0, OLD_DATA, "use 4 replicas scale service payments"],
        )
        await conn.execute("DELETE FROM tandem_migrations WHERE name = 'm007_lesson_keys'")
    async with PgStore(url) as store:
        await _rekeyed_and_replaced(store)
