"""Cold-start child of the LangGraph baseline: a fresh process resumes one paused thread, then says so.

    python -m bench.langgraph_coldstart DB THREAD_ID [--saver async|sync] [--durability async|sync|exit]

Runs in the LangGraph virtualenv and imports nothing from Tandem. It opens the saver the way
:mod:`bench.langgraph_baseline` does (WAL, synchronous=FULL), compiles the same graph, resumes
the thread (paused at after_plan) with ``Command(resume=...)`` to its next interrupt, and prints
one JSON line as soon as that call returns; the parent times spawn -> that line.
"""

from __future__ import annotations

import time

_T0 = time.perf_counter()

import argparse  # noqa: E402
import asyncio  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from langgraph.types import Command  # noqa: E402

from bench.langgraph_baseline import APPROVE, Saver, anchor_of, config_for, tandem_imported  # noqa: E402

_MARKS: dict[str, float] = {}


def _mark(name: str) -> None:
    _MARKS[name] = time.perf_counter() - _T0


async def _resume(db: str, thread_id: str, kind: Any, durability: Any) -> None:
    _mark("imported")
    saver = Saver(kind, Path(db))
    await saver.open()  # connect, PRAGMAs, saver.setup(), compile the graph
    _mark("built")
    try:
        out = await saver.invoke(Command(resume=APPROVE), config_for(thread_id), durability)
        _mark("resumed")
        line = {
            "thread_id": thread_id,
            "anchor": anchor_of(out),
            "in_child_s": time.perf_counter() - _T0,
            "tandem_imported": tandem_imported(),
            "modules": len(sys.modules),
            "rss_kb": _peak_rss_kb(),
            "marks": _MARKS,
        }
        print(json.dumps(line), flush=True)
    finally:
        await saver.close()


def _peak_rss_kb() -> int:
    """VmHWM: ru_maxrss survives fork+exec, so a child would report its parent's."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.langgraph_coldstart")
    parser.add_argument("db")
    parser.add_argument("thread_id")
    parser.add_argument("--saver", choices=("async", "sync"), default="async")
    parser.add_argument("--durability", choices=("async", "sync", "exit"), default="async")
    args = parser.parse_args(argv)
    asyncio.run(_resume(args.db, args.thread_id, args.saver, args.durability))
    return 0


if __name__ == "__main__":
    sys.exit(main())
