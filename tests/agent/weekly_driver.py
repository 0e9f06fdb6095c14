"""A process that runs the scheduler's report posts on a database at a given time (for restart and replica tests).

``python -m tests.agent.weekly_driver DB NOW TICKS [GO_FILE]``: opens the store (a SQLite file,
or a PostgreSQL URL), and with the clock standing at ``NOW`` runs the scheduler's ``tick``
``TICKS`` times (0: until killed), printing one JSON line per tick. With ``GO_FILE``, its first
tick reads the due posts, prints ``ready`` and waits for that file to exist before it claims
them: processes started together have all seen the post due before any of them claims it.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

import cli.platforms  # noqa: F401  (registers the chat platforms, as every entry point does)
from agent.brain import LLMBrain
from agent.config import PolicyConfig, ReportRule
from agent.models import ScheduledPost
from agent.offline import OfflineModel
from agent.ports import Store
from agent.runtime import Runtime
from agent.tools import ToolRegistry
from storage.facade import AsyncStore

RULE = ReportRule(channel="C0OPS", weekday="monday", hour=9, timezone="Europe/Berlin")


def wait_for(path: Path) -> None:
    while not path.exists():
        time.sleep(0.005)


async def drive(store: Store, now: float, ticks: int, go: Path | None) -> None:
    config = PolicyConfig(report=RULE)
    runtime = Runtime(store, LLMBrain(OfflineModel()), ToolRegistry(), config=config, clock=lambda: now)
    if go is not None:
        read = store.due_posts

        async def read_then_wait(at: float) -> list[ScheduledPost]:
            found = await read(at)
            store.due_posts = read  # type: ignore[method-assign]  # later ticks read as usual
            print("ready", flush=True)
            await asyncio.to_thread(wait_for, go)
            return found

        store.due_posts = read_then_wait  # type: ignore[method-assign]
    done = 0
    while ticks == 0 or done < ticks:
        await runtime.tick()
        done += 1
        print(json.dumps({"tick": done}), flush=True)


async def main(db: str, now: float, ticks: int, go: Path | None) -> None:
    if db.startswith("postgresql://"):
        from storage.postgres.store import PgStore

        async with PgStore(db) as pg:
            await drive(pg, now, ticks, go)
    else:
        async with AsyncStore(db) as sqlite:
            await drive(sqlite, now, ticks, go)


if __name__ == "__main__":
    go_file = Path(sys.argv[4]) if len(sys.argv) > 4 else None
    asyncio.run(main(sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), go_file))
