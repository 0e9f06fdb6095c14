"""Backends the storage contract runs against: add a backend by adding its param and its opener."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent.ports import Store
from storage.facade import AsyncStore

BACKENDS = ["sqlite"]  # a postgres backend adds "postgres" here and a branch below


@pytest.fixture(params=BACKENDS)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    """A fresh, empty store for one test."""
    if request.param == "sqlite":
        async with AsyncStore(tmp_path / "contract.db") as sqlite:
            yield sqlite
        return
    raise AssertionError(f"unknown backend {request.param!r}")
