"""One replica for the PostgreSQL concurrency tests: its own process and its own pool on the shared database.

``python -m tests.storage.pg_replica MODE URL READY GO ARGS…`` touches READY, waits for GO
(so replicas start together), does its part and prints what it got as JSON:

* ``decide RUN REVIEW N``: N concurrent approvals of one review, through the real runtime;
* ``approve RUN REVIEW CONFIG USER…``: each USER approves the review at once (CONFIG: the policy, as JSON);
* ``deliveries N``: claim every due outbox row it sees, N claimers at once;
* ``deadlines``: the due reviews the scheduler's query hands this replica.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import cli.platforms  # noqa: F401  (registers the chat platforms, as every entry point does)
from agent.brain import LLMBrain
from agent.config import PolicyConfig
from agent.errors import StaleDecision
from agent.llm import make_model
from agent.models import Approve
from agent.runtime import Runtime
from agent.tools import load_tools
from storage.postgres.store import PgStore

TOOLS = "tests.cli.held_tools"
T0 = 1_000_000.0


def wait_for_go(ready: Path, go: Path) -> None:
    ready.touch()
    deadline = time.monotonic() + 60
    while not go.exists():
        if time.monotonic() > deadline:
            sys.exit("never told to go")
        time.sleep(0.001)


async def decide(store: PgStore, run_id: str, review_id: str, n: int) -> dict[str, Any]:
    runtime = Runtime(store, LLMBrain(make_model("offline", None)), load_tools([TOOLS]))
    results = await asyncio.gather(
        *(runtime.decide(run_id, Approve(), "U1", review_id=review_id) for _ in range(n)), return_exceptions=True
    )
    return {
        "applied": sum(not isinstance(r, BaseException) for r in results),
        "stale": sum(isinstance(r, StaleDecision) for r in results),
        "other": [repr(r) for r in results if isinstance(r, BaseException) and not isinstance(r, StaleDecision)],
    }


async def approve(store: PgStore, run_id: str, review_id: str, config: str, users: list[str]) -> dict[str, Any]:
    policy = PolicyConfig.model_validate_json(config)
    runtime = Runtime(store, LLMBrain(make_model("offline", None)), load_tools([TOOLS]), config=policy)
    results = await asyncio.gather(
        *(runtime.decide(run_id, Approve(), user, review_id=review_id) for user in users), return_exceptions=True
    )
    return {"errors": [repr(r) for r in results if isinstance(r, BaseException)]}


async def deliveries(store: PgStore, n: int) -> dict[str, Any]:
    async def claimer() -> list[int]:
        won = []
        for row in await store.due_deliveries("slack", T0, 60, limit=1000):
            if (await store.claim_delivery_row(row.id, T0, 60)).claimed:
                won.append(row.id)
        return won

    return {"claimed": [i for won in await asyncio.gather(*(claimer() for _ in range(n))) for i in won]}


async def main(mode: str, url: str, ready: Path, go: Path, args: list[str]) -> dict[str, Any]:
    async with PgStore(url, max_size=10) as store:
        wait_for_go(ready, go)
        match mode:
            case "decide":
                return await decide(store, args[0], args[1], int(args[2]))
            case "approve":
                return await approve(store, args[0], args[1], args[2], args[3:])
            case "deliveries":
                return await deliveries(store, int(args[0]))
            case "deadlines":
                return {"claimed": [d.review_id for d in await store.due_reviews(T0, limit=1000)]}
    raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    mode, url, ready, go, *rest = sys.argv[1:]
    print(json.dumps(asyncio.run(main(mode, url, Path(ready), Path(go), rest))))
