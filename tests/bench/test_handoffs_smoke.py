"""The handoff benchmark, tiny: every handoff created, its question shown, clicked and reported by a signed webhook.

Behaviour only; the figures are ``python -m bench.handoffs``'s business."""

from __future__ import annotations

from pathlib import Path

from bench.handoffs import run, table


async def test_handoffs_bench_tiny_run_every_handoff_answered_and_its_signed_webhook_received(tmp_path: Path) -> None:
    [tandem] = await run(5, tmp_path, postgres=False, awaithumans=None, log=lambda _line: None)

    assert (len(tandem.creates), len(tandem.to_message), len(tandem.to_webhook)) == (5, 5, 5)
    assert tandem.forged == 0 and tandem.throughput > 0
    assert all(t > 0 for t in tandem.to_message + tandem.to_webhook)
    text = table([tandem])
    assert text.splitlines()[2].startswith("tandem sqlite") and "ratios" not in text


async def test_handoffs_bench_slack_latency_each_question_waits_for_its_card_and_its_own_post(tmp_path: Path) -> None:
    [tandem] = await run(3, tmp_path, postgres=False, awaithumans=None, log=lambda _line: None, latency=0.1)

    assert len(tandem.to_message) == 3
    assert min(tandem.to_message) >= 0.2  # the card's post, then the question's in its thread
