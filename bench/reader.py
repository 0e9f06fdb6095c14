"""How long the offline model takes to read a person's text, against the text's length.

    python -m bench.reader                          # 1k, 10k and 100k characters
    python -m bench.reader --sizes 1000 20000 --repeats 5

For each kind of text (blank lines, a correction padded with blank lines, mixed punctuation/CJK/
whitespace, a correction repeated) and each size, the offline model answers a ``classify`` request
and a ``plan`` request with the text as feedback, through ``OfflineModel.complete`` (its thread hop
included). The text goes in uncapped: ``agent.prompts`` reads at most ``READ_LIMIT`` characters of
it in production, and this measures the reader itself. Best of ``--repeats``; µs/char staying
flat as the size grows is what linear reading looks like. Figures only: nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from collections.abc import Callable
from typing import Any

from agent.offline import OfflineModel
from agent.ports import LLMRequest, Purpose
from agent.prompts import READ_LIMIT
from agent.tools import load_tools

TOOLS = load_tools(["demo.tools"]).describe()
STEPS = [{"number": 1, "tool": "scale_service", "params": {"service": "payments", "replicas": 2}, "status": "pending"}]


def blank_lines(size: int) -> str:
    return "\n" * size


def padded(size: int) -> str:
    """A correction followed by blank lines, as in the thread reply that once stalled the bot."""
    head = "not payments, checkout"
    return head + "\n" * max(0, size - len(head))


def mixed(size: int) -> str:
    punctuation = " \n\t,.;:!?-_/\"'“”「」()#，。、；：！？"
    alphabet = list(punctuation + "重启部署回滚日志错误检查服务不是而是先然后" + "abcxyz019")
    rng = random.Random(size)
    return "".join(rng.choice(alphabet) for _ in range(size))


def correction(size: int) -> str:
    unit = "not payments, checkout; use 3 replicas and then check errors. "
    return (unit * (size // len(unit) + 1))[:size]


KINDS: dict[str, Callable[[int], str]] = {
    "blank lines": blank_lines,
    "padded": padded,
    "mixed": mixed,
    "correction": correction,
}


def request(purpose: Purpose, text: str) -> LLMRequest:
    context: dict[str, Any]
    if purpose == "classify":
        context = {"text": text, "task": "scale payments", "anchor": "before_risky_step", "step": 1, "steps": STEPS}
    else:
        context = {"task": "scale payments to 2 replicas", "tools": TOOLS, "feedback": [text], "max_steps": 10}
    return LLMRequest(purpose=purpose, messages=[], context=context)


async def best_of(model: OfflineModel, req: LLMRequest, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        await model.complete(req)
        best = min(best, time.perf_counter() - started)
    return best


async def run(sizes: list[int], repeats: int) -> None:
    model = OfflineModel()
    print(f"offline reader, best of {repeats}; production reads at most READ_LIMIT = {READ_LIMIT} characters")
    print(f"{'text':<12} {'chars':>8} {'classify ms':>12} {'µs/char':>8} {'plan ms':>10} {'µs/char':>8}")
    for kind, make in KINDS.items():
        for size in sizes:
            text = make(size)
            classify = await best_of(model, request("classify", text), repeats)
            plan = await best_of(model, request("plan", text), repeats)
            print(
                f"{kind:<12} {size:>8} {classify * 1e3:>12.2f} {classify * 1e6 / size:>8.3f}"
                f" {plan * 1e3:>10.2f} {plan * 1e6 / size:>8.3f}"
            )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000], help="text lengths")
    parser.add_argument("--repeats", type=int, default=3, help="timings per figure; the best is printed")
    args = parser.parse_args(argv)
    asyncio.run(run(args.sizes, args.repeats))


if __name__ == "__main__":
    main()
