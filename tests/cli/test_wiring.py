"""The composition root picks the backend from TANDEM_DB: a file path is SQLite, a postgresql:// URL PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.errors import ConfigError
from agent.models import RunState
from agent.settings import CoreSettings
from cli.main import main
from cli.wiring import DEMO_WORLD_FILE, open_services, open_store
from storage.facade import AsyncStore
from storage.postgres import is_postgres_url
from storage.postgres.store import PgStore
from tests.pgserver import PgServer


@pytest.mark.parametrize(
    ("db", "postgres"),
    [
        ("./tandem.db", False),
        ("/var/lib/tandem/tandem.db", False),
        ("postgresql://tandem@db.internal/tandem", True),
        ("postgres://tandem@db.internal:5432/tandem", True),
        (" PostgreSQL://tandem@/tandem?host=/run/postgresql", True),
    ],
)
def test_is_postgres_url_with_paths_and_urls_tells_them_apart(db: str, postgres: bool) -> None:
    assert is_postgres_url(db) is postgres


async def test_open_store_with_a_postgres_url_opens_postgres_and_keeps_runs(pg_server: PgServer) -> None:
    url = pg_server.schema()
    state = RunState(id="r1", task="check api", requester="U1", created_at=1.0, updated_at=1.0)
    async with open_store(url) as store:
        assert isinstance(store, PgStore)
        await store.create(state, [])
    async with open_store(url) as store:
        assert await store.load("r1") == (state, 1)


async def test_open_store_with_a_path_opens_sqlite(tmp_path: Path) -> None:
    async with open_store(str(tmp_path / "tandem.db")) as store:
        assert isinstance(store, AsyncStore)
    assert (tmp_path / "tandem.db").exists()


async def test_open_store_with_an_unreachable_postgres_raises_config_error(tmp_path: Path) -> None:
    url = f"postgresql://tandem@/tandem?host={tmp_path / 'no-server-here'}"
    with pytest.raises(ConfigError, match="Cannot connect to the PostgreSQL database in TANDEM_DB"):
        async with open_store(url):
            pass


async def test_open_services_with_postgres_and_the_demo_toolset_keeps_the_world_in_its_own_file(
    pg_server: PgServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    settings = CoreSettings(db=pg_server.schema(), tools=None, model="offline")
    async with open_services(settings) as services:
        state = await services.runtime.start("check the status of api", "U1")
        assert state.pending is not None
    assert (tmp_path / DEMO_WORLD_FILE).exists()


async def test_open_services_with_postgres_and_real_tools_opens_no_demo_world(
    pg_server: PgServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    async with open_services(CoreSettings(db=pg_server.schema(), tools="tests.cli.held_tools")):
        pass
    assert not (tmp_path / DEMO_WORLD_FILE).exists() and not (tmp_path / "tandem.db").exists()


async def test_open_services_with_postgres_and_real_tools_runs_a_task_to_its_first_review(
    pg_server: PgServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HELD_TOOLS_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)  # no tandem.toml of the checkout's
    settings = CoreSettings(db=pg_server.schema(), tools="tests.cli.held_tools", model="offline")
    async with open_services(settings) as services:
        state = await services.runtime.start("inspect cluster blue then upgrade cluster blue", "U1")
        assert state.pending is not None and state.pending.anchor == "after_plan"
        assert [s.id for s in await services.store.list_runs()] == [state.id]


def test_main_runs_with_postgres_lists_runs_from_the_database(
    pg_server: PgServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    url = pg_server.schema()
    assert main(["runs"], settings_factory=lambda: CoreSettings(db=url)) == 0
    assert "No runs yet" in capsys.readouterr().out
