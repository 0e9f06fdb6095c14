"""The running bot and its local workspace in a process of their own, timing their own event loop.

    python -m tests.scenario.edge_server DIR

Serves the real app (:func:`tests.scenario.harness.running`: the local workspace as Slack's
Web API, a SQLite file in DIR) and prints one JSON line, ``{"events_url", "signing_secret"}``,
once it listens. Each line read from stdin is answered with one JSON line: the longest stall of
this process's event loop so far, how many runs the store holds and how many messages the
channel has. It exits when stdin closes.

A ticker sleeps ``TICK`` seconds at a time; whatever it oversleeps is time the loop spent on
something else without yielding (one loop iteration). Both the wall-clock overshoot and the loop
thread's CPU time over the same gap are reported: on a loaded machine the first also counts time
the operating system gave to other processes, the second only this loop's own work.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tests.scenario.harness import OPS, Env, running

TICK = 0.005


@dataclass
class Lag:
    wall: float = 0.0
    cpu: float = 0.0
    ticks: int = 0

    async def watch(self) -> None:
        while True:
            wall, cpu = time.perf_counter(), time.thread_time()
            await asyncio.sleep(TICK)
            self.wall = max(self.wall, time.perf_counter() - wall - TICK)
            self.cpu = max(self.cpu, time.thread_time() - cpu)
            self.ticks += 1


async def report(env: Env, lag: Lag) -> dict[str, object]:
    runs = await env.bot.deps.store.list_runs()
    return {
        "max_stall_wall": round(lag.wall, 4),
        "max_stall_cpu": round(lag.cpu, 4),
        "ticks": lag.ticks,
        "runs": len(runs),
        "messages": len(env.ws.state.history(OPS)),
    }


async def main(directory: Path) -> None:
    async with running(directory) as env:
        assert env.ws.events_url is not None
        print(json.dumps({"events_url": env.ws.events_url, "signing_secret": env.ws.signing_secret}), flush=True)
        lag = Lag()
        ticker = asyncio.get_running_loop().create_task(lag.watch())
        try:
            while await asyncio.to_thread(sys.stdin.readline):
                print(json.dumps(await report(env, lag)), flush=True)
        finally:
            ticker.cancel()


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
