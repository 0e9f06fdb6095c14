"""Runs stored by earlier releases load with their origins, now that platforms register their own.

The rows below are what the release before platform registration wrote (its ``runs`` row, state
JSON and all; both backends store the same JSON), and what a release before origins existed wrote
(a ``channel`` record).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import psycopg
import pytest

from agent.models import RunState
from agent.ports import Store
from bot.origin import SlackThread
from feishu.origin import FeishuChat
from storage.facade import AsyncStore
from storage.postgres.store import PgStore
from tests.pgserver import PgServer

_PROMPT = "What should I do, and on which target?"


def _state(run_id: str, requester: str, **where: object) -> str:
    return json.dumps(
        {
            "id": run_id,
            "task": "bounce api",
            "requester": requester,
            "created_at": 1700000000.0,
            "updated_at": 1700000000.0,
            "phase": "awaiting_review",
            "pending": {
                "id": f"{run_id}-review",
                "anchor": "handoff",
                "created_at": 1700000000.0,
                "handoff": {"prompt": _PROMPT, "reason": "the planner is not sure what you want", "max_length": 1000},
            },
            "planner_questions": 1,
            **where,
            "asked": {"anchor": "handoff"},
        },
        separators=(",", ":"),
    )


OLD_ROWS = [
    (
        "x1",
        "C0OPS",
        "C0OPS:1700000000.000100",
        _state("x1", "U0ALICE", origin={"channel_id": "C0OPS", "thread_ts": "1700000000.000100", "kind": "slack"}),
    ),
    (
        "x3",
        "oc_ops",
        "oc_ops:om_card",
        _state("x3", "ou_alice", origin={"chat_id": "oc_ops", "root_id": "om_card", "kind": "feishu"}),
    ),
    ("x5", "C0DEV", "C0DEV:1.5", _state("x5", "U0BOB", channel={"channel": "C0DEV", "thread_ts": "1.5"})),
    ("x7", None, None, _state("x7", "alice", channel={})),
]


_INSERT = (
    "INSERT INTO runs (id, task, requester, status, channel, thread, pending_review, version, created_at,"
    " updated_at, state) VALUES ({0}, 'bounce api', 'someone', 'awaiting_review', {0}, {0}, NULL, 1, 1700000000.0,"
    " 1700000000.0, {0})"
)


@asynccontextmanager
async def old_store(backend: str, tmp_path: Path, pg: Callable[[], PgServer]) -> AsyncIterator[Store]:
    """A store whose ``runs`` rows were written by the earlier releases (today's schema, migrated first)."""
    if backend == "sqlite":
        async with AsyncStore(tmp_path / "old.db"):
            pass
        db = sqlite3.connect(tmp_path / "old.db")
        with db:
            db.executemany(_INSERT.format("?"), OLD_ROWS)
        db.close()
        async with AsyncStore(tmp_path / "old.db") as sqlite:
            yield sqlite
        return
    url = pg().schema()
    async with PgStore(url):
        pass
    with psycopg.connect(url, autocommit=True) as conn, conn.cursor() as cur:
        cur.executemany(_INSERT.format("%s"), OLD_ROWS)
    async with PgStore(url) as postgres:
        yield postgres


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
@pytest.mark.parametrize(
    ("run_id", "origin"),
    [
        ("x1", SlackThread(channel_id="C0OPS", thread_ts="1700000000.000100")),
        ("x3", FeishuChat(chat_id="oc_ops", root_id="om_card")),
        ("x5", SlackThread(channel_id="C0DEV", thread_ts="1.5")),
    ],
)
async def test_run_stored_by_an_earlier_release_loads_with_its_origin_and_thread(
    request: pytest.FixtureRequest, tmp_path: Path, backend: str, run_id: str, origin: SlackThread | FeishuChat
) -> None:
    async with old_store(backend, tmp_path, lambda: request.getfixturevalue("pg_server")) as store:
        state, _ = await store.load(run_id)
        assert state.origin == origin and state.pending is not None and state.pending.handoff is not None
        assert await store.run_for_thread(origin.thread or "") == run_id


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_run_stored_at_a_terminal_before_origins_loads_as_a_terminal_run(
    request: pytest.FixtureRequest, tmp_path: Path, backend: str
) -> None:
    async with old_store(backend, tmp_path, lambda: request.getfixturevalue("pg_server")) as store:
        state, _ = await store.load("x7")
    assert state.origin.channel is None and state.origin.scope is None and state.requester == "alice"


def test_origin_written_again_is_the_record_the_earlier_release_wrote() -> None:
    """A run loaded and saved again keeps its stored origin record key for key (new code writes the old format)."""
    state = RunState.model_validate_json(OLD_ROWS[0][3])
    assert json.loads(state.model_dump_json(exclude_defaults=True))["origin"] == json.loads(OLD_ROWS[0][3])["origin"]
