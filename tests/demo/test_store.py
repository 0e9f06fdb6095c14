from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.errors import ToolError
from agent.tools import load_tools
from demo import tools as demo_tools
from demo.ops import healthy
from demo.store import SqliteOpsWorld, migrate
from demo.world import SERVICE_NAMES, InMemoryWorld, LogLevel, LogLine, Message, OpsWorld, seed, use_world
from storage.database import Database
from storage.db import connect

INFO: tuple[LogLevel, ...] = ("info",)
ALL_LEVEL_SETS: tuple[tuple[LogLevel, ...], ...] = (("info", "warning", "error"), ("error",), ("warning", "error"))


def open_db(path: Path) -> Database:
    db = connect(path, check_same_thread=False)  # as cli.wiring opens the demo world
    migrate(db)
    return db


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    db = open_db(tmp_path / "tandem.db")
    yield db
    db.close()


def test_migrate_with_new_file_creates_demo_tables_and_seeds(db: Database) -> None:
    assert {"demo_services", "demo_samples", "demo_logs", "demo_caches", "demo_outbox"} <= {
        name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    }
    world = SqliteOpsWorld(db)
    assert [s.name for s in world.services()] == list(SERVICE_NAMES)
    assert world.outbox() == []


def test_migrate_twice_seeds_once(db: Database) -> None:
    names = ("demo_services", "demo_samples", "demo_logs", "demo_caches")
    counts = {name: db.execute(f"SELECT count(*) FROM {name}").fetchone()[0] for name in names}
    migrate(db)
    assert {name: db.execute(f"SELECT count(*) FROM {name}").fetchone()[0] for name in names} == counts


def test_world_after_reopening_file_keeps_state(tmp_path: Path) -> None:
    path = tmp_path / "tandem.db"
    db = open_db(path)
    with use_world(SqliteOpsWorld(db)):
        demo_tools.restart_service("payments")
        demo_tools.deploy_service("search", "1.9.0")
        demo_tools.drop_cache("auth")
        demo_tools.send_message("#ops", "payments restarted")
    db.close()

    with open_db(path) as reopened:
        world = SqliteOpsWorld(reopened)
        payments, search, cache = world.get_service("payments"), world.get_service("search"), world.get_cache("auth")
        assert payments is not None and payments.status == "running"
        assert search is not None and (search.version, search.previous_version) == ("1.9.0", "1.8.3")
        assert cache is not None and cache.keys == 0 and cache.dropped_at is not None
        assert [(m.channel, m.text) for m in world.outbox()] == [("#ops", "payments restarted")]
        assert "Rollout of 1.9.0 complete" in "\n".join(
            line.message for line in world.logs("search", levels=INFO, limit=1)
        )


def test_restart_on_sqlite_matches_in_memory(db: Database) -> None:
    memory = InMemoryWorld()
    seed(memory, now=time.time())
    results = []
    for world in (memory, SqliteOpsWorld(db)):
        with use_world(world):
            before = demo_tools.check_service("payments")
            restarted = demo_tools.restart_service("payments")
            after = demo_tools.check_service("payments"), demo_tools.list_services()
            logs = [(line.level, line.message) for line in world.logs("payments", levels=INFO, limit=2)]
            results.append((before, restarted, after, logs))
    assert results[0] == results[1]
    assert "degraded → running" in results[1][1]


@pytest.fixture(params=["file", "memory"])
def any_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    """A file (reads on connections of their own) and a database in memory (reads on the one connection)."""
    db = open_db(tmp_path / "tandem.db" if request.param == "file" else Path(":memory:"))
    yield db
    db.close()


def test_sqlite_world_with_same_writes_reads_like_in_memory(any_db: Database) -> None:
    db = any_db
    db.execute("DELETE FROM demo_services")
    db.execute("DELETE FROM demo_samples")
    db.execute("DELETE FROM demo_logs")
    db.execute("DELETE FROM demo_caches")
    worlds: list[OpsWorld] = [InMemoryWorld(), SqliteOpsWorld(db)]
    for world in worlds:
        seed(world, now=1_700_000_000.0)
        world.add_logs(
            [LogLine(service="auth", at=1_700_000_000.0, level="info", message=f"tie {i}") for i in range(3)]
        )
        world.send(Message(channel="#ops", text="hi", at=1.0))
    memory, sqlite = worlds
    assert sqlite.services() == memory.services()
    for name in SERVICE_NAMES:
        assert sqlite.samples(name) == memory.samples(name)
        assert sqlite.get_cache(name) == memory.get_cache(name)
        for levels in ALL_LEVEL_SETS:
            assert sqlite.logs(name, levels=levels, limit=4) == memory.logs(name, levels=levels, limit=4)
    assert sqlite.logs("auth", levels=INFO, limit=0) == memory.logs("auth", levels=INFO, limit=0) == []
    assert sqlite.outbox() == memory.outbox()
    assert sqlite.get_service("nope") is None and sqlite.get_cache("nope") is None


async def test_sqlite_world_through_spec_call_runs_in_worker_thread(db: Database) -> None:
    with use_world(SqliteOpsWorld(db)):
        result = await load_tools().get("restart_service").call({"service": "payments"})
    assert "degraded → running" in result


def test_reads_do_not_wait_for_a_write_waiting_for_the_file(tmp_path: Path) -> None:
    """Tandem's commits share the world's file: a tool's write may wait for the file's write lock. Lookups made
    meanwhile by other tools answer at once from the last commit instead of queueing behind that write."""
    path = tmp_path / "tandem.db"
    db = open_db(path)
    world = SqliteOpsWorld(db)
    other = connect(path)  # as the run store: it holds the file's write lock until the reads are done
    other.execute("BEGIN IMMEDIATE")
    before = world.get_service("payments")
    assert before is not None and before.status == "degraded"
    saved: list[BaseException | None] = []

    def save() -> None:
        try:
            world.save_service(healthy(before), at=time.time())
            saved.append(None)
        except BaseException as exc:
            saved.append(exc)

    saver = threading.Thread(target=save)
    saver.start()
    deadline = time.monotonic() + 10
    while world._lock.acquire(blocking=False):  # until the saver holds the world's write lock
        world._lock.release()
        assert time.monotonic() < deadline, "the write never started"
        time.sleep(0.001)

    seen: list[object] = []
    reader = threading.Thread(target=lambda: seen.extend([world.get_service("payments"), world.services()]))
    reader.start()
    reader.join(timeout=10)
    still_waiting = saver.is_alive() and not saved
    other.execute("COMMIT")
    saver.join(timeout=10)
    try:
        assert still_waiting, "the reads waited until the write was done (or gave up)"
        assert seen[0] == before and len(seen[1]) == len(SERVICE_NAMES)  # type: ignore[arg-type]
        assert saved == [None]
        after = world.get_service("payments")
        assert after is not None and after.status == "running"  # the write is seen once committed
    finally:
        world.close()
        other.close()
        db.close()


def test_close_closes_the_reading_connections(db: Database) -> None:
    world = SqliteOpsWorld(db)
    assert world.get_service("payments") is not None
    readers = list(world._opened)
    assert readers
    world.close()
    for conn in readers:
        with pytest.raises(sqlite3.ProgrammingError):
            conn.execute("SELECT 1")
    with pytest.raises(ToolError, match="closed"):
        world.get_service("payments")
    assert db.execute("SELECT count(*) FROM demo_services").fetchone()[0] == len(SERVICE_NAMES)
