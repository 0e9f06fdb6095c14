"""API tokens on SQLite (see :mod:`agent.tokens`)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from agent.models.tokens import ApiToken, AskedRecord, TaskRecord
from storage.database import Database
from storage.db import unsynced

COLUMNS = "name, token_hash, scopes, webhook_secret, created_by, created_at, expires_at, revoked_by, revoked_at"


def token_row(row: tuple[Any, ...]) -> ApiToken:
    """A stored row (in :data:`COLUMNS` order, scopes as JSON) as a token; PostgreSQL's rows too."""
    name, token_hash, scopes, secret, by, at, expires, revoked_by, revoked_at = row
    return ApiToken(
        name=name,
        token_hash=token_hash,
        scopes=json.loads(scopes),
        webhook_secret=secret,
        created_by=by,
        created_at=at,
        expires_at=expires,
        revoked_by=revoked_by,
        revoked_at=revoked_at,
    )


def token_values(t: ApiToken) -> list[Any]:
    return [t.name, t.token_hash, json.dumps(t.scopes), t.webhook_secret, t.created_by, t.created_at, t.expires_at]


def create(db: Database, token: ApiToken) -> bool:
    try:
        db.execute(f"INSERT INTO api_tokens ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL)", token_values(token))
    except sqlite3.IntegrityError:
        return False
    return True


def by_hash(db: Database, token_hash: str) -> ApiToken | None:
    row = db.execute(f"SELECT {COLUMNS} FROM api_tokens WHERE token_hash = ?", [token_hash]).fetchone()
    return None if row is None else token_row(row)


def listed(db: Database) -> list[ApiToken]:
    return [token_row(r) for r in db.execute(f"SELECT {COLUMNS} FROM api_tokens ORDER BY created_at, name")]


def revoke(db: Database, name: str, by: str, at: float) -> bool:
    cur = db.execute(
        "UPDATE api_tokens SET revoked_by = ?, revoked_at = ? WHERE name = ? AND revoked_at IS NULL", [by, at, name]
    )
    return cur.rowcount == 1


ASKED = "run_id, token, idempotency_key, callback_url, created_at"


def asked_row(row: tuple[Any, ...]) -> AskedRecord:
    run_id, token, key, url, at = row
    return AskedRecord(id=run_id, token=token, idempotency_key=key, callback_url=url, created_at=at)


def keep_asked(db: Database, record: AskedRecord) -> AskedRecord:
    """Keep a handoff's record (or find the one its idempotency key has), without waiting for the disk: its run
    is created next, in a commit that does wait (and takes this one to disk with it, the WAL being written in
    order), and the caller hears of its handoff only after that. A record a power cut took away was never
    answered, so the caller asks again."""
    values = [record.id, record.token, record.idempotency_key, record.callback_url, record.created_at]
    with unsynced(db):
        if record.idempotency_key is None:
            _insert(db, "asked", ASKED, values)
            return record
        where = "token = ? AND idempotency_key = ?"
        return asked_row(_keep(db, "asked", ASKED, values, where, [record.token, record.idempotency_key]))


def _keep(db: Database, table: str, columns: str, values: list[Any], where: str, args: list[Any]) -> tuple[Any, ...]:
    """Insert a caller's record unless one with its key is there; the one that is there after."""
    with db.atomic():
        _insert(db, table, columns, values)
        row: tuple[Any, ...] = db.execute(f"SELECT {columns} FROM {table} WHERE {where}", args).fetchone()
    return row


def _insert(db: Database, table: str, columns: str, values: list[Any]) -> None:
    marks = ", ".join("?" for _ in values)
    db.execute(f"INSERT INTO {table} ({columns}) VALUES ({marks}) ON CONFLICT DO NOTHING", values)


def asked(db: Database, run_id: str) -> AskedRecord | None:
    row = db.execute(f"SELECT {ASKED} FROM asked WHERE run_id = ?", [run_id]).fetchone()
    return None if row is None else asked_row(row)


TASKS = "run_id, token, context_id, message_id, created_at"


def task_row(row: tuple[Any, ...]) -> TaskRecord:
    run_id, token, context_id, message_id, at = row
    return TaskRecord(id=run_id, token=token, context_id=context_id, message_id=message_id, created_at=at)


def task_values(record: TaskRecord) -> list[Any]:
    return [record.id, record.token, record.context_id, record.message_id, record.created_at]


def keep_task(db: Database, record: TaskRecord) -> TaskRecord:
    """Keep an A2A task's record (or find its message's), waiting for the disk: its run was started before, and
    the caller is answered right after."""
    where = "token = ? AND message_id = ?"
    return task_row(_keep(db, "a2a_tasks", TASKS, task_values(record), where, [record.token, record.message_id]))


def task_by_id(db: Database, run_id: str) -> TaskRecord | None:
    row = db.execute(f"SELECT {TASKS} FROM a2a_tasks WHERE run_id = ?", [run_id]).fetchone()
    return None if row is None else task_row(row)


def task_by_message(db: Database, token: str, message_id: str) -> TaskRecord | None:
    row = db.execute(
        f"SELECT {TASKS} FROM a2a_tasks WHERE token = ? AND message_id = ?", [token, message_id]
    ).fetchone()
    return None if row is None else task_row(row)
