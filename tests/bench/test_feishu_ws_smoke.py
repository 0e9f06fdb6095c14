"""The Feishu transports bench, tiny: every event and click answered 200 on both transports, cards inline."""

from __future__ import annotations

from pathlib import Path

from bench.feishu_ws import TRANSPORTS, run_bench, table


async def test_feishu_ws_bench_tiny_run_answers_everything_on_both_transports(tmp_path: Path) -> None:
    results = await run_bench(2, tmp_path)
    assert [r.transport for r in results] == list(TRANSPORTS)
    for r in results:
        assert r.statuses == [200] * 4 and len(r.acks) == 2 and len(r.answers) == 2
        assert r.decided_inline == 2, "each approval's answer carried the decided card"
    assert "callback answer" in table(results)
