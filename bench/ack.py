"""HTTP ack latency of signed Slack button clicks: Tandem's real app against a bare bolt app.

    python -m bench.ack                                  # 2,000 clicks per target, 50 clients, 8 A/B rounds
    python -m bench.ack --requests 200 --concurrency 10  # a quick look
    python -m bench.ack --profile                        # + server-side ack time and event-loop lag
    python -m bench.ack --cprofile                       # + cProfile of Tandem's batches (slows Tandem only)
    python -m bench.ack --hog 1                          # with one other process keeping a core busy

Three processes, all on 127.0.0.1:

* this one serves Tandem (``cli.serve.serving``: real listeners, offline model, demo tools,
  a temp SQLite file) and a bare ``slack_bolt`` ``AsyncApp`` whose listeners only ``ack()``
  the same action ids (same signing secret, a client built by the same ``build_client``, served
  the same way);
* a workspace child serves the local Slack Web API Tandem calls (``workspace``), so the
  fake Slack does not share Tandem's event loop;
* a client child runs the 50 concurrent ``aiohttp`` clients and times each request from
  send to response status. It gets the request bodies and headers ready-made: payloads are
  built at set-up and signed just before each batch, with fresh timestamps.

The clicks are real ``tandem.approve`` clicks: set-up starts runs with ``/tandem`` until each
pauses at its plan review, so every timed click approves a pending review (the run then reads
the error logs, restarts the service, since the plan's approval approved that step too, writes its
result and pauses for it), except a ``--decided-share`` of clicks on reviews already
approved, which must ack as fast. Rounds alternate the targets (A/B, B/A, ...); after each
Tandem batch the bench awaits the bot's background tasks, so neither target is measured while
the other's work runs. It prints per-round and pooled p50/p90/p99/max, and Tandem p99 / bare p99.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import io
import json
import math
import os
import pstats
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import aiohttp
from aiohttp import web
from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

from agent.models import PostedMessage, RunSummary
from agent.ports import Store
from blocks import ids
from bot.app import build_client
from bot.origin import SlackThread
from bot.review_posts import review_key
from bot.settings import SlackSettings
from cli.serve import Bot, serving
from workspace import BOT_ID, BOT_TOKEN, BOT_USER_ID, SIGNING_SECRET, run_workspace
from workspace import payloads as slack_payloads
from workspace.models import Message
from workspace.state import WorkspaceState
from workspace.transport import signed_headers

REPO_ROOT = Path(__file__).resolve().parent.parent
EVENTS_PATH = "/slack/events"
FORM = "application/x-www-form-urlencoded"
OPS = "C0OPS"
REQUESTER = "alice"
# With no approvers configured only the requester may decide, so the requester clicks.
CLICKER = REQUESTER
# The offline model plans this as read_logs (runs on approval) then restart_service (risky: pauses first).
TASK = "check errors on payments, then restart payments"
TARGET_RATIO = 1.5
SLACK_ACK_LIMIT = 3.0
TANDEM, BARE = "tandem", "bare bolt"


class BenchFailure(RuntimeError):
    """The workload did not run as specified: the figures would mean nothing."""


# --- what gets sent --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Click:
    """One ``tandem.approve`` press on a review message, as the url-encoded body Slack sends."""

    review_id: str
    run_id: str
    body: str


@dataclass
class Figures:
    requests: int
    p50: float
    p90: float
    p99: float
    max: float
    errors: int
    over_limit: int

    @classmethod
    def of(cls, batches: Sequence[Batch]) -> Figures:
        times = sorted(t for b in batches for t in b.latencies if t is not None)
        statuses = [s for b in batches for s in b.statuses]
        errors = sum(1 for s in statuses if s != 200)
        return cls(
            requests=len(statuses),
            p50=percentile(times, 0.50),
            p90=percentile(times, 0.90),
            p99=percentile(times, 0.99),
            max=times[-1] if times else math.nan,
            errors=errors,
            over_limit=sum(1 for t in times if t > SLACK_ACK_LIMIT),
        )


@dataclass
class Batch:
    target: str
    round: int
    latencies: list[float | None]
    statuses: list[int]
    errors: list[str]
    wall: float
    drain: float = 0.0
    worked: float = 0.0
    """Seconds from the burst's last answer until every run it approved had moved on to its next pause."""
    server: list[float] = field(default_factory=list)
    lag: list[float] = field(default_factory=list)


@dataclass
class Result:
    batches: list[Batch]
    approved: list[str]
    """Review ids the timed clicks approved (each was pending when clicked)."""
    duplicates: int
    """Timed clicks on reviews already approved."""
    db: Path
    profile: str = ""
    load: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """1, 5 and 15-minute load averages when measuring started."""
    hogs: int = 0

    def timed(self, target: str) -> list[Batch]:
        return [b for b in self.batches if b.target == target]

    @property
    def ratio(self) -> float:
        return Figures.of(self.timed(TANDEM)).p99 / Figures.of(self.timed(BARE)).p99


def percentile(ordered: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of an already sorted list."""
    if not ordered:
        return math.nan
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def click_body(review_id: str, run_id: str, ts: str, thread_ts: str, blocks: list[dict[str, Any]], n: int) -> str:
    people = WorkspaceState()
    person, place = people.user(CLICKER), people.channel(OPS)
    message = Message(
        channel=place.id,
        ts=ts,
        user=BOT_USER_ID,
        text=f"Tandem needs a decision on run {run_id}",
        blocks=blocks,
        bot_id=BOT_ID,
        thread_ts=thread_ts,
    )
    block_id, element = slack_payloads.find_element(blocks, ids.APPROVE)
    payload = slack_payloads.block_actions(
        user=person,
        container={"type": "message", "message_ts": ts, "channel_id": place.id, "is_ephemeral": False},
        action=slack_payloads.action(element, block_id=block_id, value=review_id, action_ts=f"{time.time():.6f}"),
        trigger_id=f"bench.{n}.{review_id}",
        channel=place,
        message=message.to_slack(),
        response_url=f"http://127.0.0.1:9/response/bench-{n}",  # never called: Tandem answers with the Web API
    )
    return urlencode({"payload": json.dumps(payload)})


def sign(bodies: Sequence[str]) -> list[dict[str, str]]:
    """Fresh signatures, made just before a batch is sent (bolt refuses timestamps older than 5 min)."""
    return [signed_headers(body, signing_secret=SIGNING_SECRET, content_type=FORM) for body in bodies]


# --- the two servers -------------------------------------------------------------------------------


def bare_app(settings: SlackSettings) -> AsyncApp:
    """What bolt costs on its own: the same app settings, listeners that only ack."""
    app = AsyncApp(
        client=build_client(settings),
        signing_secret=settings.secret("signing_secret"),
        process_before_response=False,
    )

    async def just_ack(ack: AsyncAck) -> None:
        await ack()

    for action_id in sorted(ids.ACTIONS):
        app.action(action_id)(just_ack)
    return app


@asynccontextmanager
async def serving_bare(settings: SlackSettings) -> AsyncIterator[tuple[AsyncApp, str]]:
    """Served the way ``cli.serve.serving`` serves Tandem: ``web_app()`` behind an ``AppRunner``."""
    app = bare_app(settings)
    runner = web.AppRunner(app.web_app(path=EVENTS_PATH))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield app, f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


# --- child processes -------------------------------------------------------------------------------


class Child:
    """``python -m bench.ack --role ROLE``: JSON lines in, JSON lines out; exits when stdin closes."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    @classmethod
    @asynccontextmanager
    async def running(cls, role: str) -> AsyncIterator[Child]:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench.ack",
            "--role",
            role,
            cwd=REPO_ROOT,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=1 << 28,
        )
        try:
            yield cls(proc)
        finally:
            assert proc.stdin is not None
            proc.stdin.close()
            try:
                await asyncio.wait_for(proc.wait(), timeout=10)
            except TimeoutError:
                proc.kill()
                await proc.wait()

    async def receive(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = await self.proc.stdout.readline()
        if not line:
            raise BenchFailure(f"bench child {self.proc.pid} exited ({await self.proc.wait()})")
        answer: dict[str, Any] = json.loads(line)
        return answer

    async def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(request).encode() + b"\n")
        await self.proc.stdin.drain()
        return await self.receive()


async def workspace_role() -> None:
    async with run_workspace() as ws:
        print(json.dumps({"api_url": ws.api_url}), flush=True)
        await asyncio.to_thread(sys.stdin.read)


async def client_role() -> None:
    """The clients: one keep-alive session per target, ``concurrency`` workers per batch."""
    sessions: dict[str, aiohttp.ClientSession] = {}
    try:
        while line := await asyncio.to_thread(sys.stdin.readline):
            job = json.loads(line)
            url, concurrency = str(job["url"]), int(job["concurrency"])
            if url not in sessions:
                connector = aiohttp.TCPConnector(limit=concurrency, force_close=False)
                sessions[url] = aiohttp.ClientSession(connector=connector)
            # The job (hundreds of signed bodies) was just decoded: a collection of the client's own heap
            # would fall in the burst and time the client, not the target (it hit the first requests of
            # the first round, whichever target went first). So: collected before, none during.
            gc.collect()
            gc.disable()
            try:
                answer = await fire(
                    sessions[url],
                    url,
                    job["bodies"],
                    job["headers"],
                    concurrency,
                    aiohttp.ClientTimeout(total=float(job["timeout"])),
                )
            finally:
                gc.enable()
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()
    finally:
        for session in sessions.values():
            await session.close()


async def fire(
    session: aiohttp.ClientSession,
    url: str,
    bodies: list[str],
    headers: list[dict[str, str]],
    concurrency: int,
    limit: aiohttp.ClientTimeout,
) -> dict[str, Any]:
    encoded = [b.encode() for b in bodies]
    latencies: list[float | None] = [None] * len(bodies)
    statuses = [0] * len(bodies)
    errors: list[str] = []
    cursor = iter(range(len(bodies)))

    async def worker() -> None:
        for i in cursor:
            try:
                start = time.perf_counter()
                async with session.post(url, data=encoded[i], headers=headers[i], timeout=limit) as response:
                    latencies[i] = time.perf_counter() - start
                    statuses[i] = response.status
                    await response.read()
            except (aiohttp.ClientError, TimeoutError) as exc:
                errors.append(f"{type(exc).__name__}: {exc}")

    began = time.perf_counter()
    async with asyncio.TaskGroup() as group:
        for _ in range(min(concurrency, len(bodies))):
            group.create_task(worker())
    return {"latencies": latencies, "statuses": statuses, "errors": errors[:5], "wall": time.perf_counter() - began}


# --- measuring inside the server (--profile) -------------------------------------------------------


class Probe:
    """Server-side dispatch time per request and event-loop lag, for explaining the figures."""

    def __init__(self, apps: Sequence[AsyncApp]) -> None:
        self.dispatch: list[float] = []
        self.lag: list[float] = []
        for app in apps:
            self._wrap(app)

    def _wrap(self, app: AsyncApp) -> None:
        inner: Callable[[AsyncBoltRequest], Awaitable[BoltResponse]] = app.async_dispatch

        async def timed(req: AsyncBoltRequest) -> BoltResponse:
            start = time.perf_counter()
            try:
                return await inner(req)
            finally:
                self.dispatch.append(time.perf_counter() - start)

        app.async_dispatch = timed  # type: ignore[method-assign]

    @asynccontextmanager
    async def watching(self) -> AsyncIterator[None]:
        self.dispatch, self.lag = [], []

        async def sample() -> None:
            while True:
                start = time.perf_counter()
                await asyncio.sleep(0.005)
                self.lag.append(time.perf_counter() - start - 0.005)

        task = asyncio.get_running_loop().create_task(sample())
        try:
            yield
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


# --- the run ---------------------------------------------------------------------------------------


@dataclass
class Plan:
    requests: int = 2000
    concurrency: int = 50
    rounds: int = 8
    warmup: int = 50
    decided_share: float = 0.2
    timeout: float = 30.0
    seed: int = 7
    profile: bool = False
    cprofile: bool = False
    hog: int = 0
    """Busy processes (``while True: pass``) running while the rounds are timed: CPU contention."""

    def sizes(self) -> list[int]:
        """Timed requests per round for each target."""
        base, extra = divmod(self.requests, self.rounds)
        return [base + (1 if r < extra else 0) for r in range(self.rounds)]

    def real_clicks(self) -> int:
        return sum(n - self.duplicates(n) for n in self.sizes())

    def duplicates(self, n: int) -> int:
        return round(n * self.decided_share)

    @property
    def pool(self) -> int:
        """Runs approved at set-up: what warm-ups and early duplicate clicks press."""
        return max(2, min(self.concurrency, 50))


async def moved_on(db: Path, clicks: Sequence[Click], within: float = 120.0) -> float:
    """Seconds until every run ``clicks`` approved has moved past the clicked review (its work done, up to its
    next pause), read from the database file by a connection of its own every 10 ms."""
    if not clicks:
        return 0.0
    runs = [c.run_id for c in clicks]
    reviews = [c.review_id for c in clicks]
    sql = (
        f"SELECT COUNT(*) FROM runs WHERE id IN ({', '.join('?' * len(runs))}) AND (status = 'executing'"
        f" OR pending_review IN ({', '.join('?' * len(reviews))}))"
    )
    start = time.perf_counter()
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, check_same_thread=False)
    try:
        while await asyncio.to_thread(lambda: int(conn.execute(sql, [*runs, *reviews]).fetchone()[0])):
            if time.perf_counter() - start > within:
                raise BenchFailure(f"approved runs had not moved on within {within:.0f}s")
            await asyncio.sleep(0.01)
    finally:
        conn.close()
    return time.perf_counter() - start


async def settle(bot: Bot, within: float = 120.0) -> float:
    """The bot's background work and the messages it caused, bounded: the bench must stop by itself.
    Returns seconds waited."""
    start = time.perf_counter()

    async def quiet() -> None:
        await bot.deps.background.idle()
        await bot.deps.delivery.idle()

    try:
        await asyncio.wait_for(quiet(), timeout=within)
    except TimeoutError:
        me = asyncio.current_task()
        left = sorted({t.get_name() for t in asyncio.all_tasks() if t is not me and not t.done()})
        raise BenchFailure(f"the bot's background work did not finish within {within:.0f}s; tasks: {left}") from None
    return time.perf_counter() - start


HOG = "import os\nparent = os.getppid()\nwhile os.getppid() == parent:\n    pass\n"
"""Busy until the bench ends, or dies: it stops once its parent is gone."""


@asynccontextmanager
async def hogging(count: int) -> AsyncIterator[None]:
    """``count`` other processes, each keeping one core busy, until the block ends."""
    hogs = [
        await asyncio.create_subprocess_exec(sys.executable, "-c", HOG, stdin=asyncio.subprocess.DEVNULL)
        for _ in range(count)
    ]
    try:
        yield
    finally:
        for hog in hogs:
            hog.kill()
            await hog.wait()


async def start_runs(session: aiohttp.ClientSession, bot: Bot, count: int, concurrency: int) -> None:
    """``/tandem TASK`` from alice, ``count`` times, as Slack would send it; then wait for every plan review."""
    people = WorkspaceState()
    person, place = people.user(REQUESTER), people.channel(OPS)
    url = f"{bot.url}{EVENTS_PATH}"
    queue = iter(range(count))

    async def sender() -> None:
        for n in queue:
            form = slack_payloads.slash_command(
                user=person,
                channel=place,
                command="/tandem",
                text=TASK,
                trigger_id=f"setup.{n}",
                response_url=f"http://127.0.0.1:9/response/setup-{n}",
            )
            body = urlencode(form)
            async with session.post(url, data=body, headers=sign([body])[0]) as response:
                if response.status != 200:
                    raise BenchFailure(f"/tandem got HTTP {response.status}: {await response.text()}")

    async with asyncio.TaskGroup() as group:
        for _ in range(concurrency):
            group.create_task(sender())
    # A run is started after its ack, and its plan review is posted only after its card: wait until every
    # run waits at its posted review (the positive signal), settling the bot's work between looks.
    deadline = time.perf_counter() + 120.0
    while len(await paused_reviews(bot.deps.store, count + 100)) < count and time.perf_counter() < deadline:
        await settle(bot)
        await asyncio.sleep(0.05)


async def paused_reviews(store: Store, limit: int) -> list[tuple[int, RunSummary, PostedMessage]]:
    """The runs (of the newest ``limit``) waiting at a review whose message is posted: each with its place in
    that list and the review's message."""
    found = []
    for n, run in enumerate(await store.list_runs(channel=OPS, limit=limit)):
        if run.status != "awaiting_review" or run.pending_review is None:
            continue
        posted = await store.message(review_key(run.pending_review))
        if posted is not None:
            found.append((n, run, posted))
    return found


async def paused_clicks(store: Store, expected: int) -> list[Click]:
    clicks = []
    for n, run, posted in await paused_reviews(store, expected + 100):
        assert run.pending_review is not None
        state, _ = await store.load(run.id)
        if not isinstance(state.origin, SlackThread) or state.origin.thread_ts is None:
            continue
        body = click_body(run.pending_review, run.id, posted.ts, state.origin.thread_ts, posted.blocks, n)
        clicks.append(Click(run.pending_review, run.id, body))
    if len(clicks) != expected:
        raise BenchFailure(f"expected {expected} runs paused at a review in Slack, found {len(clicks)}")
    return clicks


async def answered_by_clicker(store: Store, review_ids: Sequence[str]) -> list[str]:
    """The reviews among ``review_ids`` not approved by the clicker, or whose run did not move on (should be none)."""
    clicker = WorkspaceState().user(CLICKER).id
    wrong = []
    for review_id in review_ids:
        record = await store.get_review(review_id)
        answer = record.answer if record else None
        if record is None or record.answered_by != clicker or not answer or answer.get("kind") != "approve":
            wrong.append(review_id)
            continue
        state, _ = await store.load(record.run_id)
        if state.pending is not None and state.pending.id == review_id:
            wrong.append(review_id)  # answered, but the run did not move on
    return wrong


async def run_bench(plan: Plan, workdir: Path, log: Callable[[str], None] = print) -> Result:
    db = workdir / "tandem.db"
    rng = random.Random(plan.seed)
    async with Child.running("workspace") as slack_api:
        api_url = str((await slack_api.receive())["api_url"])
        settings = SlackSettings(
            bot_token=BOT_TOKEN, signing_secret=SIGNING_SECRET, api_url=api_url, db=str(db), model="offline"
        )
        async with serving(settings, port=0) as bot, serving_bare(settings) as (bare, bare_url):
            try:
                return await _measure(plan, bot, bare, bare_url, db, rng, log)
            finally:
                await settle(bot)  # nothing the clicks started may outlive the bench


async def _measure(
    plan: Plan, bot: Bot, bare: AsyncApp, bare_url: str, db: Path, rng: random.Random, log: Callable[[str], None]
) -> Result:
    store = bot.deps.store
    need = plan.real_clicks() + plan.pool
    log(f"set-up: starting {need} runs with /tandem (each pauses at its plan review) ...")
    began = time.perf_counter()
    async with aiohttp.ClientSession() as session:
        await start_runs(session, bot, need, concurrency=min(plan.concurrency, 20))
    clicks = await paused_clicks(store, need)
    rng.shuffle(clicks)
    pool, fresh = clicks[: plan.pool], clicks[plan.pool :]
    log(f"set-up: {need} runs paused in {time.perf_counter() - began:.1f}s; approving {len(pool)} for re-clicks ...")

    targets = {TANDEM: f"{bot.url}{EVENTS_PATH}", BARE: f"{bare_url}{EVENTS_PATH}"}
    async with hogging(plan.hog):
        return await _rounds(plan, bot, bare, targets, db, rng, log, pool, fresh)


async def _rounds(
    plan: Plan,
    bot: Bot,
    bare: AsyncApp,
    targets: dict[str, str],
    db: Path,
    rng: random.Random,
    log: Callable[[str], None],
    pool: list[Click],
    fresh: list[Click],
) -> Result:
    store = bot.deps.store
    load = os.getloadavg()
    probe = Probe([bot.app, bare]) if plan.profile else None
    profiler = cProfile.Profile() if plan.cprofile else None
    batches: list[Batch] = []
    approved: list[str] = []
    decided = list(pool)
    duplicates = 0

    async with Child.running("client") as client:

        async def send(target: str, bodies: list[str]) -> dict[str, Any]:
            job = {
                "url": targets[target],
                "bodies": bodies,
                "headers": sign(bodies),
                "concurrency": plan.concurrency,
                "timeout": plan.timeout,
            }
            return await client.ask(job)

        async def measured(target: str, bodies: list[str]) -> tuple[dict[str, Any], list[float], list[float]]:
            profiling = profiler if target == TANDEM else None
            async with probe.watching() if probe is not None else nullcontext():
                if profiling is not None:
                    profiling.enable()
                try:
                    answer = await send(target, bodies)
                finally:
                    if profiling is not None:
                        profiling.disable()
            if probe is None:
                return answer, [], []
            return answer, list(probe.dispatch), list(probe.lag)

        # The pool: real approvals, sent the way the timed ones are; then its reviews are decided.
        answer = await send(TANDEM, [c.body for c in pool])
        await settle(bot)
        if any(s != 200 for s in answer["statuses"]) or await answered_by_clicker(store, [c.review_id for c in pool]):
            raise BenchFailure(f"set-up approvals failed: {answer['errors'] or answer['statuses']}")

        for number, n in enumerate(plan.sizes(), start=1):
            dup = plan.duplicates(n)
            real, fresh = fresh[: n - dup], fresh[n - dup :]
            batch = real + [rng.choice(decided) for _ in range(dup)]
            rng.shuffle(batch)
            bodies = [c.body for c in batch]
            order = (TANDEM, BARE) if number % 2 else (BARE, TANDEM)
            for target in order:
                warm = [rng.choice(decided).body for _ in range(plan.warmup)]
                if warm:
                    await send(target, warm)
                    await settle(bot)
                answer, server, lag = await measured(target, bodies)
                worked = await moved_on(db, real) if target == TANDEM else 0.0
                drain = worked + await settle(bot)  # from the burst's last answer, as work s
                batches.append(
                    Batch(
                        target=target,
                        round=number,
                        latencies=answer["latencies"],
                        statuses=answer["statuses"],
                        errors=answer["errors"],
                        wall=float(answer["wall"]),
                        drain=drain,
                        worked=worked,
                        server=server,
                        lag=lag,
                    )
                )
            approved += [c.review_id for c in real]
            duplicates += dup
            decided += real
            log(f"round {number}/{plan.rounds} done ({' then '.join(order)})")

    await settle(bot)
    wrong = await answered_by_clicker(store, approved)
    if wrong:
        raise BenchFailure(f"{len(wrong)} of {len(approved)} clicked reviews were not approved, e.g. {wrong[:3]}")
    return Result(
        batches=batches,
        approved=approved,
        duplicates=duplicates,
        db=db,
        profile=_report(profiler),
        load=load,
        hogs=plan.hog,
    )


def _report(profiler: cProfile.Profile | None) -> str:
    if profiler is None:
        return ""
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(25)
    stats.sort_stats("cumulative").print_stats(40)
    return out.getvalue()


# --- the report ------------------------------------------------------------------------------------


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f}"


def table(result: Result, plan: Plan) -> str:
    head = f"{'target':<12} {'round':>5} {'requests':>8} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'max ms':>8}"
    head += f" {'errors':>6} {'>3s':>4} {'req/s':>7}"
    extra = plan.profile
    if extra:
        head += f" {'srv p50':>8} {'srv p99':>8} {'lag p99':>8} {'lag max':>8}"
    head += f" {'work s':>7} {'drain s':>7}"
    lines = [head, "-" * len(head)]

    def row(target: str, label: str, batches: Sequence[Batch]) -> str:
        f = Figures.of(batches)
        wall = sum(b.wall for b in batches)
        line = f"{target:<12} {label:>5} {f.requests:>8} {ms(f.p50)} {ms(f.p90)} {ms(f.p99)} {ms(f.max)}"
        line += f" {f.errors:>6} {f.over_limit:>4} {f.requests / wall if wall else 0:>7.0f}"
        if extra:
            server = sorted(t for b in batches for t in b.server)
            lag = sorted(t for b in batches for t in b.lag)
            line += f" {ms(percentile(server, 0.5))} {ms(percentile(server, 0.99))}"
            line += f" {ms(percentile(lag, 0.99))} {ms(lag[-1] if lag else math.nan)}"
        drain = max((b.drain for b in batches), default=0.0)
        worked = max((b.worked for b in batches), default=0.0)
        return line + f" {worked:>7.2f} {drain:>7.2f}"

    for number in range(1, plan.rounds + 1):
        for batch in (b for b in result.batches if b.round == number):
            lines.append(row(batch.target, str(number), [batch]))
    lines.append("-" * len(head))
    for target in (TANDEM, BARE):
        lines.append(row(target, "all", result.timed(target)))
    lines.append("")
    for number in range(1, plan.rounds + 1):
        t = Figures.of([b for b in result.timed(TANDEM) if b.round == number]).p99
        b = Figures.of([b for b in result.timed(BARE) if b.round == number]).p99
        lines.append(f"round {number}: Tandem p99 / bare p99 = {t / b:.2f}x")
    ratios = sorted(
        Figures.of([b for b in result.timed(TANDEM) if b.round == n]).p99
        / Figures.of([b for b in result.timed(BARE) if b.round == n]).p99
        for n in range(1, plan.rounds + 1)
    )
    lines.append(f"median of the per-round ratios: {statistics.median(ratios):.2f}x (robust to one noisy round)")
    verdict = "met" if result.ratio <= TARGET_RATIO else "MISSED"
    lines.append(f"pooled:  Tandem p99 / bare p99 = {result.ratio:.2f}x (target <= {TARGET_RATIO}x: {verdict})")
    for batch in result.batches:
        if batch.errors:
            lines.append(f"errors ({batch.target}, round {batch.round}): {batch.errors}")
    return "\n".join(lines)


def describe(plan: Plan, result: Result) -> str:
    return (
        f"{plan.requests} timed clicks per target in {plan.rounds} alternating rounds, {plan.concurrency} "
        f"concurrent clients on 127.0.0.1, {plan.warmup} untimed warm-up clicks per target per round.\n"
        f"Tandem: {len(result.approved)} clicks approved a pending plan review (each run then reads the error logs, "
        "restarts the service, approved with the plan, writes its result and pauses for it); "
        f"{result.duplicates} clicked a review already approved.\n"
        f"Time = send -> response status, in a separate client process. Python {sys.version.split()[0]}, "
        f"{os.cpu_count()} CPUs, load average {result.load[0]:.2f} / {result.load[1]:.2f} / {result.load[2]:.2f} "
        "when measuring began (the machine is shared: read the per-round rows).\n"
        + (
            f"CPU contention: {result.hogs} other process(es) busy-looping while every round was timed."
            if result.hogs
            else "No CPU hog (--hog N adds N busy processes while the rounds are timed)."
        )
    )


def parse(argv: Sequence[str] | None = None) -> tuple[str, Plan]:
    parser = argparse.ArgumentParser(prog="python -m bench.ack", description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000, help="timed requests per target (default 2000)")
    parser.add_argument("--concurrency", type=int, default=50, help="concurrent clients (default 50)")
    parser.add_argument("--rounds", type=int, default=8, help="alternating A/B rounds (default 8)")
    parser.add_argument("--warmup", type=int, default=None, help="untimed requests per target per round")
    parser.add_argument("--decided-share", type=float, default=0.2, help="share of clicks on decided reviews")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--profile", action="store_true", help="server-side ack time and event-loop lag")
    parser.add_argument("--cprofile", action="store_true", help="cProfile Tandem's timed batches (main thread)")
    parser.add_argument("--hog", type=int, default=0, help="busy processes running while rounds are timed")
    parser.add_argument("--role", choices=("bench", "client", "workspace"), default="bench", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.requests < args.rounds or args.rounds < 1 or args.concurrency < 1 or not 0 <= args.decided_share < 1:
        parser.error("need --rounds >= 1, --requests >= --rounds, --concurrency >= 1, 0 <= --decided-share < 1")
    plan = Plan(
        requests=args.requests,
        concurrency=args.concurrency,
        rounds=args.rounds,
        warmup=args.concurrency if args.warmup is None else args.warmup,
        decided_share=args.decided_share,
        seed=args.seed,
        profile=args.profile,
        cprofile=args.cprofile,
        hog=max(0, args.hog),
    )
    return str(args.role), plan


def main(argv: Sequence[str] | None = None) -> None:
    role, plan = parse(argv)
    if role == "client":
        asyncio.run(client_role())
        return
    if role == "workspace":
        asyncio.run(workspace_role())
        return
    with tempfile.TemporaryDirectory(prefix="tandem-ack-") as tmp:
        result = asyncio.run(run_bench(plan, Path(tmp), log=lambda s: print(s, file=sys.stderr, flush=True)))
    print(describe(plan, result))
    print()
    print(table(result, plan))
    if result.profile:
        print()
        print(result.profile)


if __name__ == "__main__":
    main()
