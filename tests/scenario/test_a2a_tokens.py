"""The A2A door's token check over real HTTP, with the SDK's client: a missing, wrong, expired or revoked token is
refused (401), a token without ``runs:write`` too (403), and another token's task is unknown; nothing is started."""

from __future__ import annotations

from pathlib import Path

import pytest
from a2a.client import A2AClientError
from a2a.types import GetTaskRequest
from a2a.utils.errors import TaskNotFoundError

from tests.scenario.a2a_client import calling, client_for, sent, task_message, token_for
from tests.scenario.harness import running

TASK = "restart payments and check errors after"


async def test_a_wrong_expired_revoked_or_unscoped_token_is_refused_and_starts_nothing(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        clock = env.bot.deps.clock
        expired = await token_for(env, "old", expires_at=clock() - 1)
        revoked = await token_for(env, "gone")
        assert await env.bot.deps.store.revoke_token("gone", "ops", clock())
        unscoped = await token_for(env, "asker", scopes=("handoffs:write", "handoffs:read"))
        cases = [
            ("tdm_not-a-token", "401"),
            ("", "401"),
            (expired.token, "401"),
            (revoked.token, "401"),
            (unscoped.token, "403"),
        ]
        for presented, status in cases:
            async with client_for(env.bot.url, presented) as client:
                with pytest.raises(A2AClientError, match=f"HTTP Error {status}"):
                    await sent(client, task_message(TASK))
        assert await env.bot.deps.store.list_runs() == []


async def test_a_refused_token_is_told_why_in_the_response(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        revoked = await token_for(env, "gone")
        assert await env.bot.deps.store.revoke_token("gone", "ops", env.bot.deps.clock())
        async with client_for(env.bot.url, revoked.token) as client:
            with pytest.raises(A2AClientError) as refused:
                await sent(client, task_message(TASK))
    assert "401" in str(refused.value)
    response = refused.value.__cause__.response  # type: ignore[union-attr]
    assert "revoked" in response.json()["detail"] and response.headers["WWW-Authenticate"].startswith("Bearer")


async def test_another_tokens_task_is_not_found(tmp_path: Path) -> None:
    async with calling(tmp_path) as (env, client):
        [response] = await sent(client, task_message(TASK))
        other = await token_for(env, "other")
        async with client_for(env.bot.url, other.token) as stranger:
            with pytest.raises(TaskNotFoundError):
                await stranger.get_task(GetTaskRequest(id=response.task.id))
