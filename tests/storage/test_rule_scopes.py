"""Rules stored before rules had a scope load, on both backends, as tool-wide rules that apply to every target."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlite_utils import Database

from agent.models import Rule
from agent.ports import Store
from storage.db import migrations
from storage.facade import AsyncStore
from storage.postgres.schema import MIGRATIONS
from storage.postgres.store import PgStore
from tests.pgserver import PgServer

OLD_ROW = "INSERT INTO rules (id, channel, tool, created_by, created_at) VALUES ('old1', 'C1', 'restart', 'U1', 5.0)"


def _sqlite_before_scopes(path: Path) -> None:
    db = Database(sqlite3.connect(str(path), isolation_level=None))
    migrations.apply(db, stop_before="m009_rule_scopes")
    db.execute(OLD_ROW)
    db.conn.close()


def _postgres_before_scopes(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE tandem_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        for name, sql in MIGRATIONS:
            if name == "m006_rule_scopes":
                break
            conn.execute(sql.encode())
            conn.execute("INSERT INTO tandem_migrations (name) VALUES (%s)", [name])
        conn.execute(OLD_ROW)


async def _rules(store: Store) -> list[Rule]:
    return await store.rules("C1")


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_rule_stored_before_scopes_loads_tool_wide_and_covers_every_target(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    store: Any
    if backend == "sqlite":
        _sqlite_before_scopes(tmp_path / "old.db")
        store = AsyncStore(tmp_path / "old.db")
    else:
        server: PgServer = request.getfixturevalue("pg_server")
        url = server.schema()
        _postgres_before_scopes(url)
        store = PgStore(url)
    async with store:
        [old] = await _rules(store)
        assert (old.id, old.tool, old.target, old.tool_wide) == ("old1", "restart", None, True)
        assert old.covers("restart", {"service": "payments"}) and old.covers("restart", {"service": "checkout"})
        widened = await store.widen_rule("old1", "U2", 9.0)
        assert widened is None, "a tool-wide rule has nothing to widen"
