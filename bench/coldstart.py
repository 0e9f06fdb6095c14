"""Cold-start child: a fresh process that resumes one paused run, then says so.

    python -m bench.coldstart DB RUN_ID REVIEW_ID [--brain llm|fixed] [--via runtime|wiring]

Its modules load with garbage collection paused, as the ``tandem`` command's do (:mod:`cli.start`).
``--via runtime`` (the measured figure) builds what a resume needs and nothing more:
AsyncStore, the brain, the bench tools, Runtime. ``--via wiring`` goes through the real
composition root, :func:`cli.wiring.open_services` (which also opens the demo world).
It prints one JSON line as soon as the resume is committed; the parent times
spawn -> that line. The line names the heavy packages loaded (:data:`HEAVY`: none may be), and with
``--modules`` every module in ``sys.modules`` (``tests/bench/test_resume_modules.py`` compares them).
"""

from __future__ import annotations

import gc
import time

_T0 = time.perf_counter()
if __name__ == "__main__":  # as the tandem command starts (cli.start): modules load with collection paused
    gc.disable()

import argparse  # noqa: E402
import asyncio  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
from collections.abc import Iterable  # noqa: E402
from typing import Any  # noqa: E402

from agent.models import Approve, RunState  # noqa: E402
from bench.workload import REVIEWER, TOOL_MODULE, make_brain, registry  # noqa: E402

_MARKS: dict[str, float] = {}

# Packages a process that only resumes a run must not import: the report's chart (matplotlib, numpy),
# the LLM client, the Feishu and Slack SDKs, PostgreSQL, and sqlite-utils (whose import brings numpy).
HEAVY = ("numpy", "matplotlib", "litellm", "lark_oapi", "psycopg", "slack_sdk", "slack_bolt", "sqlite_utils")


def _mark(name: str) -> None:
    _MARKS[name] = time.perf_counter() - _T0


def _loaded() -> None:
    """The modules are loaded: what they made is frozen and collection is on again before any work, as in
    cli.start."""
    gc.freeze()
    gc.enable()


async def _resume_runtime(db: str, run_id: str, review_id: str, brain: str, modules: bool) -> RunState:
    from agent.runtime import Runtime
    from storage.facade import AsyncStore

    the_brain = make_brain("fixed" if brain == "fixed" else "llm")
    _loaded()
    _mark("imported")
    store = await AsyncStore(db).open()
    _mark("opened")
    try:
        runtime = Runtime(store, the_brain, registry())
        _mark("built")
        state = await runtime.decide(run_id, Approve(), REVIEWER, review_id=review_id)
        _mark("resumed")
        _report(state, modules)
        return state
    finally:
        await store.close()


async def _resume_wiring(db: str, run_id: str, review_id: str, modules: bool) -> RunState:
    from agent.settings import CoreSettings
    from cli.wiring import open_services

    _loaded()
    settings = CoreSettings(db=db, model="offline", tools=TOOL_MODULE)
    async with open_services(settings) as services:
        state = await services.runtime.decide(run_id, Approve(), REVIEWER, review_id=review_id)
        _report(state, modules)
        return state


def heavy_loaded(modules: Iterable[str]) -> list[str]:
    """The :data:`HEAVY` packages among ``modules`` (names as in ``sys.modules``)."""
    return sorted({name.split(".")[0] for name in modules} & set(HEAVY))


def _report(state: RunState, modules: bool) -> None:
    loaded = list(sys.modules)
    line: dict[str, Any] = {
        "run_id": state.id,
        "status": state.status,
        "anchor": state.pending.anchor if state.pending else None,
        "in_child_s": time.perf_counter() - _T0,
        "heavy": heavy_loaded(loaded),
        "modules": len(loaded),
        "rss_kb": _peak_rss_kb(),
        "marks": _MARKS,
    }
    if modules:
        line["loaded"] = sorted(loaded)
    print(json.dumps(line), flush=True)


def _peak_rss_kb() -> int:
    """This process's peak RSS. VmHWM, because ru_maxrss survives fork+exec: a child reports its parent's."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.coldstart")
    parser.add_argument("db")
    parser.add_argument("run_id")
    parser.add_argument("review_id")
    parser.add_argument("--brain", choices=("llm", "fixed"), default="llm")
    parser.add_argument("--via", choices=("runtime", "wiring"), default="runtime")
    parser.add_argument("--modules", action="store_true", help="list every loaded module in the JSON line")
    args = parser.parse_args(argv)
    if args.via == "wiring":
        asyncio.run(_resume_wiring(args.db, args.run_id, args.review_id, args.modules))
    else:
        asyncio.run(_resume_runtime(args.db, args.run_id, args.review_id, args.brain, args.modules))
    return 0


if __name__ == "__main__":
    sys.exit(main())
