"""The terminal names people and channels where this machine knows them: a database ``tandem dev`` served
(its local workspace's people and channels are known), read by ``tandem runs``, ``show`` and ``lessons``."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.run import tandem_in as tandem
from tests.scenario.harness import OPS, THREE_ANCHORS, gate_of, policy_file, running
from workspace.persist import dump

TASK = "scale payments to 2 replicas"


async def _slack_run_with_a_lesson(tmp_path: Path) -> str:
    """A run alice started in #ops whose step she corrected (a lesson), kept as ``tandem dev`` keeps it."""
    async with running(tmp_path, config=policy_file(tmp_path, THREE_ANCHORS)) as env:
        card, gate = await gate_of(env, TASK)
        await env.ws.reply_in_thread("alice", OPS, card.ts, "use 4 replicas")
        await env.next_review(card, after=gate)
        lessons = await env.bot.deps.store.lessons(OPS)
        assert lessons, "the correction taught a lesson"
        (tmp_path / "tandem.db.workspace.json").write_text(dump(env.ws.state))
        return (await env.bot.deps.store.list_runs())[0].id


async def test_runs_show_and_lessons_of_a_dev_database_name_people_and_channels(tmp_path: Path) -> None:
    run_id = await _slack_run_with_a_lesson(tmp_path)
    runs, show, lessons = (tandem(tmp_path, *cmd) for cmd in (["runs"], ["show", run_id], ["lessons"]))
    assert (runs.returncode, show.returncode, lessons.returncode) == (0, 0, 0), (runs.stderr, show.stderr)
    assert f"{run_id}  awaiting_review  alice " in runs.stdout, runs.stdout
    assert "@alice  in #ops" in lessons.stdout, lessons.stdout
    assert " alice      decided" in show.stdout, show.stdout
    for shown in (runs.stdout, lessons.stdout, show.stdout.split("History")[0]):
        assert "U0ALICE" not in shown and "C0OPS" not in shown, shown
    assert json.loads(tandem(tmp_path, "runs", "--json").stdout)[0]["requester"] == "U0ALICE", "JSON keeps ids"


async def test_runs_of_a_database_no_workspace_served_show_ids_as_stored(tmp_path: Path) -> None:
    await _slack_run_with_a_lesson(tmp_path)
    (tmp_path / "tandem.db.workspace.json").unlink()
    runs = tandem(tmp_path, "runs")
    assert runs.returncode == 0 and " U0ALICE " in runs.stdout, runs.stdout
