"""Backends the storage contract runs against: add a backend by adding its param and its opener.

The PostgreSQL backend runs on a real server the session starts (``pg_server`` in tests/conftest.py):
when it cannot start, its tests fail with the reason; they are never skipped.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent.ports import Store
from storage.facade import AsyncStore
from storage.postgres.store import PgStore
from tests.pgserver import PgServer

BACKENDS = ["sqlite", "postgres"]


@pytest.fixture(params=BACKENDS)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    """A fresh, empty store for one test."""
    if request.param == "sqlite":
        async with AsyncStore(tmp_path / "contract.db") as sqlite:
            yield sqlite
        return
    if request.param == "postgres":
        server: PgServer = request.getfixturevalue("pg_server")
        async with PgStore(server.schema()) as postgres:
            yield postgres
        return
    raise AssertionError(f"unknown backend {request.param!r}")
