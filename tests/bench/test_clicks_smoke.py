"""bench.clicks plays its stories through the real runtime: the defaults ask less, and never weaken a gate."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.clicks import STORIES, main, play


async def test_bench_clicks_readme_story_takes_two_answers_when_bob_approves_the_plan(tmp_path: Path) -> None:
    story = STORIES[0]
    before = await play(story, before=True, folder=tmp_path)
    after = await play(story, before=False, folder=tmp_path)
    assert [kind for kind, _, _ in before.answers] == ["plan", "gate", "outcome", "result"]
    assert [kind for kind, _, _ in after.answers] == ["plan", "result"] and after.status == "done"


async def test_bench_clicks_plan_approved_by_alice_still_waits_for_bob_at_the_gate(tmp_path: Path) -> None:
    after = await play(STORIES[1], before=False, folder=tmp_path)
    assert ("gate", "U0BOB", "✓") in after.answers and after.status == "done"


async def test_bench_clicks_deploy_under_a_quorum_gets_exactly_two_approvals_at_its_gate(tmp_path: Path) -> None:
    after = await play(STORIES[3], before=False, folder=tmp_path)
    assert after.gate_approvals() == 2 and after.status == "done"


async def test_bench_clicks_prints_before_and_after_and_meets_its_targets(capsys: pytest.CaptureFixture[str]) -> None:
    assert await main([]) == 0
    out = capsys.readouterr().out
    assert "restart and check (bob approves the plan): 4 → 2" in out and "targets: met" in out
