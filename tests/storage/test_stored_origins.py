"""Runs stored by earlier releases load with their origins, now that platforms register their own.

The rows below are what the release before platform registration wrote to SQLite (its ``runs``
row, state JSON and all), and what a release before origins existed wrote (a ``channel`` record).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from agent.models import RunState
from bot.origin import SlackThread
from feishu.origin import FeishuChat
from storage.facade import AsyncStore

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


async def _old_database(path: Path) -> None:
    async with AsyncStore(path):  # today's schema, migrated
        pass
    db = sqlite3.connect(path)
    with db:
        db.executemany(
            "INSERT INTO runs (id, task, requester, status, channel, thread, pending_review, version, created_at,"
            " updated_at, state) VALUES (?, 'bounce api', 'someone', 'awaiting_review', ?, ?, NULL, 1, 1700000000.0,"
            " 1700000000.0, ?)",
            OLD_ROWS,
        )
    db.close()


@pytest.mark.parametrize(
    ("run_id", "origin"),
    [
        ("x1", SlackThread(channel_id="C0OPS", thread_ts="1700000000.000100")),
        ("x3", FeishuChat(chat_id="oc_ops", root_id="om_card")),
        ("x5", SlackThread(channel_id="C0DEV", thread_ts="1.5")),
    ],
)
async def test_run_stored_by_an_earlier_release_loads_with_its_origin_and_thread(
    tmp_path: Path, run_id: str, origin: SlackThread | FeishuChat
) -> None:
    await _old_database(tmp_path / "old.db")
    async with AsyncStore(tmp_path / "old.db") as store:
        state, _ = await store.load(run_id)
        assert state.origin == origin and state.pending is not None and state.pending.handoff is not None
        assert await store.run_for_thread(origin.thread or "") == run_id


async def test_run_stored_at_a_terminal_before_origins_loads_as_a_terminal_run(tmp_path: Path) -> None:
    await _old_database(tmp_path / "old.db")
    async with AsyncStore(tmp_path / "old.db") as store:
        state, _ = await store.load("x7")
    assert state.origin.channel is None and state.origin.scope is None and state.requester == "alice"


def test_origin_written_again_is_the_record_the_earlier_release_wrote() -> None:
    """A run loaded and saved again keeps its stored origin record key for key (new code writes the old format)."""
    state = RunState.model_validate_json(OLD_ROWS[0][3])
    assert json.loads(state.model_dump_json(exclude_defaults=True))["origin"] == json.loads(OLD_ROWS[0][3])["origin"]
