"""A failed ``auth.test`` is told for what it is: Slack not answering (try again), or a token Slack refuses
(reinstall). Signed HTTP into the real app, with the local Slack fake failing ``auth.test``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scenario.harness import OPS, Env, running, text_of

TASK = "restart payments and check errors after"
ATTEMPTS = {500: 3, 429: 4, 200: 1}
"""How often the bot's client calls ``auth.test`` for one request: it retries a 5xx twice and a rate limit
three times (see ``bot.app.build_client``); an error answered with 200 is not retried."""


def _told(env: Env) -> list[str]:
    return [text_of(m) for m in env.ws.state.ephemerals_for("U0ALICE")]  # type: ignore[arg-type]


def _fail_auth_test(env: Env, error: str, status: int) -> None:
    for _ in range(ATTEMPTS[status]):
        env.ws.state.fail_next("auth.test", error, status=status, retry_after=0 if status == 429 else None)


@pytest.mark.parametrize(
    ("error", "status"),
    [("internal_error", 500), ("ratelimited", 429), ("fatal_error", 200), ("service_unavailable", 200)],
)
async def test_slash_command_while_auth_test_fails_transiently_says_try_again_and_the_retry_starts_the_run(
    tmp_path: Path, error: str, status: int
) -> None:
    async with running(tmp_path) as env:
        _fail_auth_test(env, error, status)
        await env.ws.slash_command("alice", OPS, TASK)
        await env.wait(lambda: bool(_told(env)))
        assert "Slack is not answering; try again" in _told(env)[-1]
        assert "reinstall" not in _told(env)[-1]
        assert not env.cards() and await env.bot.deps.store.list_runs() == []

        card = await env.start(TASK)  # trying again works, as the message said
        assert await env.next_review(card)


async def test_slash_command_while_slack_is_slow_to_fail_auth_test_is_still_told_within_slacks_three_seconds(
    tmp_path: Path,
) -> None:
    async with running(tmp_path) as env:
        _fail_auth_test(env, "internal_error", 500)
        env.ws.state.latency = 1.0  # each attempt takes a second: with the client's retries, well over three
        await env.ws.slash_command("alice", OPS, TASK)  # the workspace drops an answer later than 3 s, as Slack does
        await env.wait(lambda: bool(_told(env)))
        assert "Slack is not answering; try again" in _told(env)[-1]
        assert not env.cards() and await env.bot.deps.store.list_runs() == []


@pytest.mark.parametrize("error", ["invalid_auth", "account_inactive", "token_revoked"])
async def test_slash_command_with_a_token_slack_refuses_says_reinstall(tmp_path: Path, error: str) -> None:
    async with running(tmp_path) as env:
        _fail_auth_test(env, error, 200)
        await env.ws.slash_command("alice", OPS, TASK)
        await env.wait(lambda: bool(_told(env)))
        assert "reinstall Tandem" in _told(env)[-1] and error in _told(env)[-1]
        assert "not answering" not in _told(env)[-1]
        assert not env.cards() and await env.bot.deps.store.list_runs() == []
