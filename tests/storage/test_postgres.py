"""What the PostgreSQL store adds beyond the contract: several replicas on one database.

Replicas here are real processes (``tests/storage/pg_replica.py``), each with its own pool,
started together behind a barrier.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from agent.brain import LLMBrain
from agent.config import AnchorsRule, PolicyConfig
from agent.llm import make_model
from agent.models import Approve, CardRefresh, NewsLine, Review, RunState, encode_outgoing
from agent.runtime import Runtime
from agent.tools import load_tools
from storage.postgres.schema import MIGRATIONS
from storage.postgres.store import PgStore
from tests.pgserver import PgServer

ROOT = Path(__file__).resolve().parents[2]
T0 = 1_000_000.0
TASK = "inspect cluster blue then upgrade cluster blue"


def replicas(tmp_path: Path, url: str, *argvs: list[str]) -> list[dict[str, Any]]:
    """Run one replica process per argv, released together once all are ready; their JSON outputs."""
    go = tmp_path / "go"
    ready = [tmp_path / f"ready-{i}" for i in range(len(argvs))]
    env = {**os.environ, "HELD_TOOLS_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.storage.pg_replica", argv[0], url, str(flag), str(go), *argv[1:]],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for flag, argv in zip(ready, argvs, strict=True)
    ]
    try:
        deadline = time.monotonic() + 60
        while not all(flag.exists() for flag in ready):
            assert all(p.poll() is None for p in procs), [p.communicate() for p in procs if p.poll() is not None]
            assert time.monotonic() < deadline, "replicas never got ready"
            time.sleep(0.01)
        go.touch()
        outputs = [p.communicate(timeout=120) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for p, (_, err) in zip(procs, outputs, strict=True):
        assert p.returncode == 0, err
    return [json.loads(out) for out, _ in outputs]


async def test_open_by_many_stores_on_a_fresh_database_migrates_once(pg_server: PgServer) -> None:
    url = pg_server.schema()
    stores = [PgStore(url, min_size=1, max_size=1) for _ in range(8)]
    try:
        await asyncio.gather(*(s.open() for s in stores))
        async with stores[0].pool.connection() as conn:
            cur = await conn.execute("SELECT name FROM tandem_migrations ORDER BY name")
            assert [r[0] for r in await cur.fetchall()] == [name for name, _ in MIGRATIONS]
    finally:
        await asyncio.gather(*(s.close() for s in stores))


async def test_fifty_approvals_of_one_review_from_two_replicas_make_one_transition(
    pg_server: PgServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HELD_TOOLS_DIR", str(tmp_path))
    url = pg_server.schema()
    async with PgStore(url) as store:
        apart = PolicyConfig(anchors=AnchorsRule(merge_gate=False))  # the plan's approval leaves the deploy's gate
        tools = load_tools(["tests.cli.held_tools"])
        runtime = Runtime(store, LLMBrain(make_model("offline", None)), tools, config=apart)
        state = await runtime.start(TASK, "U1")
        assert state.pending is not None and state.pending.anchor == "after_plan"
        review_id = state.pending.id

        results = await asyncio.to_thread(
            replicas, tmp_path, url, ["decide", state.id, review_id, "25"], ["decide", state.id, review_id, "25"]
        )

        assert sum(r["applied"] for r in results) == 1, results
        assert sum(r["stale"] for r in results) == 49 and all(r["other"] == [] for r in results), results
        decided = [e for e in await store.events(state.id) if e.kind == "decided"]
        assert len(decided) == 1
        after, _ = await store.load(state.id)
        assert after.pending is not None and after.pending.anchor == "before_risky_step"
        assert (tmp_path / "calls.log").read_text().split() == ["inspect_cluster"], "the step ran once"


async def test_a_quorum_approved_by_two_replicas_at_once_counts_every_approval(
    pg_server: PgServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HELD_TOOLS_DIR", str(tmp_path))
    url = pg_server.schema()
    approvers = [f"U{i}" for i in range(2, 12)]
    config = PolicyConfig(approvers={"deploy": approvers}, quorum={"deploy": "all"})
    async with PgStore(url) as store:
        runtime = Runtime(
            store, LLMBrain(make_model("offline", None)), load_tools(["tests.cli.held_tools"]), config=config
        )
        state = await runtime.start(TASK, "U1")
        assert state.pending is not None
        state = await runtime.decide(state.id, Approve(), "U2", review_id=state.pending.id)
        gate = state.pending
        assert gate is not None and gate.anchor == "before_risky_step" and gate.quorum == len(approvers)

        results = await asyncio.to_thread(
            replicas,
            tmp_path,
            url,
            ["approve", state.id, gate.id, config.model_dump_json(), *approvers[:5]],
            ["approve", state.id, gate.id, config.model_dump_json(), *approvers[5:]],
        )

        assert [r["errors"] for r in results] == [[], []], "no approval lost to the other replica's"
        after, _ = await store.load(state.id)
        assert after.pending is not None and after.pending.anchor == "before_result", "the gate opened once"
        assert (tmp_path / "calls.log").read_text().split() == ["inspect_cluster", "upgrade_cluster"]


async def test_deliveries_claimed_by_two_replicas_go_to_exactly_one_each(pg_server: PgServer, tmp_path: Path) -> None:
    url = pg_server.schema()
    async with PgStore(url) as store:
        for i in range(40):
            run_id = f"r{i}"
            state = RunState(id=run_id, task="t", requester="U1", created_at=T0, updated_at=T0)
            await store.create(state, [], outbox=("slack", [NewsLine(text=str(n)) for n in range(5)]))
        rows = {d.id for d in await store.due_deliveries("slack", T0, 60, limit=1000)}
        assert len(rows) == 200

        results = await asyncio.to_thread(replicas, tmp_path, url, ["deliveries", "4"], ["deliveries", "4"])

        claimed = [i for r in results for i in r["claimed"]]
        assert sorted(claimed) == sorted(rows), "every row claimed, none twice"
        assert await store.due_deliveries("slack", T0, 60) == []


async def test_due_reviews_taken_by_two_replicas_at_once_are_split_between_them(
    pg_server: PgServer, tmp_path: Path
) -> None:
    url = pg_server.schema()
    async with PgStore(url) as store:
        for i in range(300):
            review = Review(id=f"rv{i}", anchor="after_plan", created_at=T0, deadline=T0 - 1)
            state = RunState(
                id=f"r{i}",
                task="t",
                requester="U1",
                created_at=T0,
                updated_at=T0,
                phase="awaiting_review",
                pending=review,
            )
            await store.create(state, [], review)

        results = await asyncio.to_thread(replicas, tmp_path, url, ["deadlines"], ["deadlines"])

        first, second = (set(r["claimed"]) for r in results)
        assert not first & second, "no review handed to both replicas"
        assert first | second == {f"rv{i}" for i in range(300)}
        assert await store.due_reviews(T0) == [], "the other replicas' claims hold against a third"


async def test_card_retried_while_a_newer_card_commits_is_dropped_without_an_error(pg_server: PgServer) -> None:
    url = pg_server.schema()
    async with PgStore(url) as store:
        state = RunState(id="r1", task="t", requester="U1", created_at=T0, updated_at=T0)
        await store.create(state, [], outbox=("slack", [CardRefresh()]))
        [card] = await store.due_deliveries("slack", T0, 60)
        assert (await store.claim_delivery_row(card.id, T0, 60)).claimed
        async with (
            await psycopg.AsyncConnection.connect(url) as other,
            await psycopg.AsyncConnection.connect(url, autocommit=True) as watch,
        ):
            async with other.transaction():  # another replica's transition writes a newer card, not committed yet
                await other.execute(
                    "INSERT INTO outbox (run_id, channel, kind, message, status, created_at, next_at)"
                    " VALUES ('r1', 'slack', 'card', %s, 'pending', %s, 0)",
                    [encode_outgoing(CardRefresh()), T0 + 1],
                )
                retry = asyncio.create_task(store.retry_delivery(card.id, 1, T0 + 30, "timeout"))
                for _ in range(500):  # until the retry waits on the newer row's lock
                    cur = await watch.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
                    row = await cur.fetchone()
                    if row is not None and row[0] > 0:
                        break
                    await asyncio.sleep(0.01)
                else:
                    raise AssertionError("the retry never waited on the newer card")
        await retry  # the newer card committed: the retried one is superseded, not an error

        due = await store.due_deliveries("slack", T0 + 60, 60)
        assert [d.message.kind for d in due] == ["card"] and due[0].id != card.id, "only the newer card is sent"
