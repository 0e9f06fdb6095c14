"""API tokens on SQLite (see :mod:`agent.tokens`)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from sqlite_utils import Database

from agent.models.tokens import ApiToken

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
