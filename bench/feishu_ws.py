"""Feishu's two connection modes, side by side: how fast events are acknowledged and card callbacks answered.

For each transport (``webhook``: encrypted, signed POSTs to ``/feishu/events``; ``ws``: data frames
over the long connection to lark-oapi's real client), the bench starts the real bot against the local
Feishu fake on 127.0.0.1, starts ``--runs`` runs (one mention each), waits for every plan review, then
approves each plan with its button. It prints the time to open the connection (``ws``: the SDK's
import, the endpoint discovery and the WebSocket handshake, in its thread), and p50 / p90 / max of
the event acknowledgements and of the callback answers (the decided card, inline). Feishu allows
3 s for a callback. Nothing is asserted here; ``tests/bench`` checks that the workload ran.

    .venv/bin/python -m bench.feishu_ws --runs 30
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from cli.serve import FeishuBot, feishu_connected, feishu_serving
from feishu.settings import FeishuSettings
from workspace.feishu_fake import (
    APP_ID,
    APP_SECRET,
    ENCRYPT_KEY,
    VERIFICATION_TOKEN,
    FeishuFake,
    Posted,
    button_values,
    run_feishu,
)

TRANSPORTS = ("webhook", "ws")
TASK = "restart payments and check errors after"


class BenchFailure(Exception):
    """The workload did not go as specified (a run without a review, a click not answered 200)."""


@dataclass
class Result:
    transport: str
    connect: float
    acks: list[float] = field(default_factory=list)
    answers: list[float] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)
    decided_inline: int = 0


@asynccontextmanager
async def _bot(fake: FeishuFake, transport: str, db: Path) -> AsyncIterator[FeishuBot]:
    settings = FeishuSettings(
        app_id=APP_ID,
        app_secret=APP_SECRET,
        verification_token=VERIFICATION_TOKEN,
        encrypt_key=ENCRYPT_KEY,
        api_url=fake.api_url,
        db=str(db),
        card_update_interval=0.05,
    )
    if transport == "ws":
        async with feishu_connected(settings) as bot:
            yield bot
    else:
        async with feishu_serving(settings, port=0) as bot:
            fake.events_url = f"{bot.url}/feishu/events"
            yield bot


def _review(fake: FeishuFake, root: Posted) -> Posted | None:
    for m in fake.thread(root.message_id):
        if any(v.get("action") == "approve" for v in button_values(m.card)):
            return m
    return None


async def _until(predicate: object, within: float) -> None:
    deadline = time.monotonic() + within
    while not callable(predicate) or not predicate():
        if time.monotonic() > deadline:
            raise BenchFailure(f"nothing came within {within} s")
        await asyncio.sleep(0.01)


async def measure(transport: str, runs: int, workdir: Path) -> Result:
    async with run_feishu(transport=transport) as fake:
        started = time.perf_counter()
        async with _bot(fake, transport, workdir / f"{transport}.db"):
            if transport == "ws":
                await fake.connected(within=120)
            result = Result(transport, connect=time.perf_counter() - started)
            for i in range(runs):
                t0 = time.perf_counter()
                answer = await fake.say("alice", f"oc_bench_{i}", TASK)
                result.acks.append(time.perf_counter() - t0)
                result.statuses.append(answer.status)
            roots: list[Posted] = []
            for i in range(runs):
                chat = f"oc_bench_{i}"
                await _until(lambda chat=chat: fake.roots(chat), 60)
                root = fake.roots(chat)[0]
                await _until(lambda root=root: _review(fake, root), 60)
                roots.append(root)
            for root in roots:
                review = _review(fake, root)
                assert review is not None
                t0 = time.perf_counter()
                answer = await fake.click("alice", review.message_id, "approve")
                result.answers.append(time.perf_counter() - t0)
                result.statuses.append(answer.status)
                result.decided_inline += int(answer.body.get("card", {}).get("type") == "raw")
    if any(s != 200 for s in result.statuses):
        raise BenchFailure(f"{transport}: not every request was answered 200: {result.statuses}")
    return result


def _ms(values: list[float]) -> str:
    if not values:
        return "—"
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
    return (
        f"p50 {statistics.median(ordered) * 1000:6.1f} ms  p90 {p90 * 1000:6.1f} ms  max {ordered[-1] * 1000:6.1f} ms"
    )


def table(results: list[Result]) -> str:
    lines = []
    for r in results:
        lines.append(f"{r.transport:<8} connection open in {r.connect:.2f} s")
        lines.append(f"{'':<8} event ack      {_ms(r.acks)}  ({len(r.acks)} events)")
        lines.append(
            f"{'':<8} callback answer {_ms(r.answers)}  "
            f"({len(r.answers)} clicks, {r.decided_inline} with the card inline)"
        )
    return "\n".join(lines)


async def run_bench(runs: int, workdir: Path, transports: tuple[str, ...] = TRANSPORTS) -> list[Result]:
    return [await measure(t, runs, workdir) for t in transports]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.feishu_ws", description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            results = asyncio.run(run_bench(args.runs, Path(tmp)))
        except BenchFailure as exc:
            print(f"bench failed: {exc}", file=sys.stderr)
            return 1
    print(table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
