"""Handoffs end to end: create them over ``/api/v1``, answer them with clicks, time the signed webhooks.

    python -m bench.handoffs                                   # 1,000 handoffs on SQLite (and PostgreSQL if it runs)
    python -m bench.handoffs --handoffs 50 --no-postgres       # a quick look
    python -m bench.handoffs --awaithumans-python /tmp/ah/bin/python   # side by side with awaithumans

Tandem: the real ``tandem serve`` app (offline model, a temp SQLite file, or a temp PostgreSQL server when one
can be started, as ``tests/storage`` does), against the local Slack fake (:mod:`workspace`). The app runs in a
process of its own, as awaithumans' server does: the creators, the clicker, the webhook receiver and the Slack
fake stay in this one (``--in-process`` serves the app here too, sharing this process's interpreter with all of
them, as this bench did at first).
Each handoff is ``POST``ed with a ``callback_url`` to a receiver here that checks every signature; its question
is clicked (a signed ``block_actions`` request into the Bolt app, as Slack sends it) once it is in the thread.
Printed: create p50/p99 (the ``POST`` round trip), create → question in the thread, click → webhook received
(p50/p99), and throughput (handoffs created, answered and reported per second, first create to last webhook).

awaithumans (:mod:`bench.awaithumans_side`), when ``--awaithumans-python`` names the python of a virtualenv where
it is installed (outside this project)::

    python3 -m venv /tmp/ah && /tmp/ah/bin/pip install "awaithumans[server]"

runs the same workload through its documented HTTP API on its own FastAPI server (SQLite): ``POST /api/tasks``
with a ``callback_url``, ``POST /api/tasks/{id}/complete`` as the click, its signed webhook received here. It has
no Slack thread in this setup, so "create → message" is not measured for it. Ratios are awaithumans / Tandem for
latencies and Tandem / awaithumans for throughput (above 1: Tandem ahead).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from agent.tokens import mint
from bench.handoff_figures import HEADER, Figures, Receiver, bounded, prompt, receiving
from bench.results import BenchFailure, percentile
from bench.spawn import REPO_ROOT
from blocks import ids
from bot.settings import SlackSettings
from cli import platforms  # noqa: F401  (an entry point: registers every installed platform, as tandem does)
from cli.serve import serving
from workspace import Workspace, run_workspace
from workspace.models import Message

OPS = "C0OPS"
CLICKER = "alice"


class Questions:
    """The questions as they appear in the Slack fake's threads: when, and the message, by handoff number."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.seen: dict[int, tuple[float, Message]] = {}
        self._scanned = 0
        self._waiting: dict[int, asyncio.Future[None]] = {}

    async def shown(self, number: int) -> tuple[float, Message]:
        """When handoff ``number``'s question appeared, and its message (once it has)."""
        if number not in self.seen:
            await self._waiting.setdefault(number, asyncio.get_running_loop().create_future())
        return self.seen[number]

    async def watch(self) -> None:
        state = self.ws.state
        version = state.changes.version
        while True:
            messages = state.messages[state.channel(OPS).id]
            now = time.perf_counter()
            for message in messages[self._scanned :]:
                self._note(message, now)
            self._scanned = len(messages)
            version = await state.changes.wait_past(version)

    def _note(self, message: Message, at: float) -> None:
        if not message.thread_ts or ids.ANSWER not in str(message.blocks):
            return
        shown = str(message.blocks)
        start = shown.find("Handoff ")
        if start < 0:
            return
        number = shown[start + 8 :].split(":", 1)[0]
        if number.isdigit() and int(number) not in self.seen:
            self.seen[int(number)] = (at, message)
            waiting = self._waiting.pop(int(number), None)
            if waiting is not None:
                waiting.set_result(None)


def answer_button(message: Message) -> str:
    for block in message.blocks or []:
        for element in block.get("elements", []):
            if element.get("action_id") == f"{ids.ANSWER}.0":
                return str(element["value"])
    raise ValueError("no answer button")


@dataclass
class Served:
    """Where the app listens, and the API token (and its webhook secret) it knows."""

    url: str
    token: str
    webhook_secret: str


@asynccontextmanager
async def serving_here(spec: dict[str, str]) -> AsyncIterator[Served]:
    """The app in this process, made with ``SlackSettings(**spec)``; once the block ends, its background work
    and deliveries are awaited."""
    async with serving(SlackSettings(**spec), port=0) as bot:
        made = mint("bench", ["handoffs:write", "handoffs:read"], "bench", time.time())
        await bot.deps.store.create_token(made.stored)
        yield Served(bot.url, made.token, made.webhook_secret)
        await bot.deps.background.idle()
        await bot.deps.delivery.idle()


@asynccontextmanager
async def serving_apart(spec: dict[str, str]) -> AsyncIterator[Served]:
    """The app in a child process (``--role server``): its settings go in on stdin, where it serves comes out;
    closing stdin ends it once its work is done."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.handoffs",
        "--role",
        "server",
        cwd=REPO_ROOT,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(json.dumps(spec).encode() + b"\n")
        await proc.stdin.drain()
        line = await asyncio.wait_for(proc.stdout.readline(), 120)
        if not line:
            raise BenchFailure(f"the app's process exited ({await proc.wait()}) before it served")
        yield Served(**json.loads(line))
    finally:
        proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), 120)
        except TimeoutError:
            proc.kill()
            await proc.wait()


async def server_role() -> None:
    spec = json.loads(await asyncio.to_thread(sys.stdin.readline))
    async with serving_here(spec) as served:
        print(json.dumps(served.__dict__), flush=True)
        await asyncio.to_thread(sys.stdin.read)


async def run_tandem(
    n: int, db: str, label: str, log: Callable[[str], None], latency: float = 0.0, *, apart: bool = True
) -> Figures:
    figures = Figures(label)
    async with run_workspace() as ws:
        ws.state.latency = latency
        spec = {
            "bot_token": ws.bot_token,
            "signing_secret": ws.signing_secret,
            "api_url": ws.api_url,
            "db": db,
            "model": "offline",
        }
        async with (serving_apart if apart else serving_here)(spec) as bot:
            ws.events_url = f"{bot.url}/slack/events"
            receiver = Receiver(bot.webhook_secret, lambda body: str(body["id"]))
            questions = Questions(ws)
            watcher = asyncio.create_task(questions.watch())
            created: dict[int, tuple[str, float]] = {}
            headers = {"Authorization": f"Bearer {bot.token}"}
            async with receiving(receiver) as hook, aiohttp.ClientSession(bot.url, headers=headers) as http:
                ask = {"input_type": "choice", "options": ["roll back", "keep"], "channel": OPS}
                ask |= {"assignees": [ws.state.user(CLICKER).id], "callback_url": hook}

                async def create(i: int) -> None:
                    t0 = time.perf_counter()
                    async with http.post("/api/v1/handoffs", json={**ask, "prompt": prompt(i)}) as answer:
                        assert answer.status == 201, await answer.text()
                        body = await answer.json()
                    figures.creates.append(time.perf_counter() - t0)
                    created[i] = (body["id"], t0)

                start = time.perf_counter()
                await bounded(n, create)
                log(f"{label}: {n} created")
                clicked: dict[str, float] = {}

                async def click(i: int) -> None:
                    at, message = await questions.shown(i)
                    figures.to_message.append(at - created[i][1])
                    clicked[created[i][0]] = time.perf_counter()
                    action = f"{ids.ANSWER}.0"
                    await ws.click(CLICKER, OPS, message.ts, action, answer_button(message))

                await asyncio.wait_for(bounded(n, click), 600)
                last = max(at for at, _ in questions.seen.values()) - start
                log(f"{label}: {n} clicked; the last question was shown {last:.2f} s after the first create")
                await receiver.until(n, 600)
                figures.wall = max(receiver.received.values()) - start
            figures.to_webhook = [receiver.received[h] - t for h, t in clicked.items()]
            figures.forged = receiver.forged
            watcher.cancel()
    return figures


def ratios(tandem: Figures, peer: Figures) -> str:
    def r(mine: list[float], theirs: list[float], q: float) -> str:
        return f"{percentile(theirs, q) / percentile(mine, q):6.2f}×" if mine and theirs else "     -"

    through = f"{tandem.throughput / peer.throughput:6.2f}×" if peer.throughput else "     -"
    return (
        f"ratios vs {peer.target} (above 1: Tandem ahead): create p50 {r(tandem.creates, peer.creates, 50)} "
        f"p99 {r(tandem.creates, peer.creates, 99)} · click→webhook p50 {r(tandem.to_webhook, peer.to_webhook, 50)} "
        f"p99 {r(tandem.to_webhook, peer.to_webhook, 99)} · throughput {through}"
    )


async def run(
    n: int,
    workdir: Path,
    *,
    postgres: bool,
    awaithumans: str | None,
    log: Callable[[str], None],
    latency: float = 0.0,
    apart: bool = True,
) -> list[Figures]:
    results = [await run_tandem(n, str(workdir / "tandem.db"), "tandem sqlite", log, latency, apart=apart)]
    if postgres:
        from tests.pgserver import PgServer, PgServerError  # a dev helper: starts a private server

        try:
            server = PgServer(durable=True).start()
        except PgServerError as exc:
            log(f"PostgreSQL not measured: {exc}")
        else:
            try:
                results.append(await run_tandem(n, server.database(), "tandem postgres", log, latency, apart=apart))
            finally:
                server.stop()
    if awaithumans:
        from bench.awaithumans_side import run_awaithumans

        try:
            results.append(await run_awaithumans(n, awaithumans, workdir / "awaithumans", log))
        except (RuntimeError, TimeoutError, OSError) as exc:  # Tandem's figures still print
            log(f"awaithumans not measured: {exc}")
    return results


def table(results: list[Figures]) -> str:
    lines = [HEADER, *(f.line() for f in results)]
    tandem = next((f for f in results if f.target == "tandem sqlite"), None)
    lines += [ratios(tandem, f) for f in results if tandem is not None and f.target.startswith("awaithumans")]
    lines += [f"{f.target}: {f.forged} webhooks failed their signature check" for f in results if f.forged]
    lines += [f"{f.target}: {f.errors} requests answered 5xx and were tried again" for f in results if f.errors]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.handoffs", description=__doc__.split("\n")[0])
    parser.add_argument("--handoffs", type=int, default=1000)
    parser.add_argument("--no-postgres", action="store_true", help="SQLite only")
    parser.add_argument("--awaithumans-python", help="the python of a virtualenv with awaithumans[server]")
    parser.add_argument(
        "--slack-latency",
        type=float,
        default=0.0,
        metavar="MS",
        help="milliseconds the Slack fake takes per Web API call (real Slack: 100-300)",
    )
    parser.add_argument(
        "--in-process", action="store_true", help="serve Tandem's app in this process, beside the clients and the fake"
    )
    parser.add_argument("--role", choices=("bench", "server"), default="bench", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.role == "server":
        asyncio.run(server_role())
        return 0
    with tempfile.TemporaryDirectory(prefix="tandem-bench-handoffs-") as tmp:
        results = asyncio.run(
            run(
                args.handoffs,
                Path(tmp),
                postgres=not args.no_postgres,
                awaithumans=args.awaithumans_python,
                log=lambda line: print(line, file=sys.stderr, flush=True),
                latency=args.slack_latency / 1000,
                apart=not args.in_process,
            )
        )
    print("Tandem's app served in this process" if args.in_process else "Tandem's app served in a process of its own")
    if args.slack_latency:
        print(f"Slack fake: {args.slack_latency:.0f} ms per Web API call")
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
