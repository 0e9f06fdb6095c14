"""An @-mention in a channel reads as ``/tandem``: a task starts a run, a command answers, anything else says how.

Slack sends such a post twice (a ``message`` event, then an ``app_mention``), and so does the local workspace."""

from __future__ import annotations

from pathlib import Path

from tests.scenario.harness import OPS, Env, running, text_of


def told(env: Env) -> list[str]:
    return [text_of(e) for e in env.ws.state.ephemerals_for("alice")]  # type: ignore[arg-type]


async def test_mention_with_a_task_run_starts_once(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        await env.ws.mention("alice", OPS, "restart payments please")
        await env.wait(lambda: env.cards())
        await env.idle()
        assert len(env.cards()) == 1
        assert "restart payments please" in text_of(env.cards()[0])


async def test_mention_one_word_that_is_no_command_says_how_to_start_a_run(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        await env.ws.mention("alice", OPS, "hi")
        await env.wait(lambda: told(env))
        await env.idle()
        assert "`hi` is not a Tandem command" in told(env)[0]
        assert "`@Tandem restart payments and check errors after`" in told(env)[0]
        assert env.cards() == []


async def test_mention_with_a_command_answers_it_instead_of_starting_a_run(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        await env.start("restart payments")
        await env.ws.mention("alice", OPS, "list")
        await env.wait(lambda: told(env))
        await env.idle()
        assert "restart payments" in told(env)[0]
        assert len(env.cards()) == 1
