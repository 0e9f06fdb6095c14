"""Fixtures shared across the test tree."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import cli.platforms  # noqa: F401  (the chat platforms every entry point registers)
from tests.pgserver import PgServer


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """One real PostgreSQL server for the session, started on first use (each test takes a fresh schema
    or database of it). When it cannot start, the tests that use it fail with the reason: never skipped."""
    server = PgServer()
    try:
        yield server.start()
    finally:
        server.stop()
