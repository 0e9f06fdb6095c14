"""Following an A2A task as it moves (``SubscribeToTask``, streamed ``SendMessage``), whoever moves it, and the
task surviving a restart of ``tandem serve``, also a real process killed with SIGKILL (read from the stored run)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from a2a.client import Client
from a2a.types import StreamResponse, SubscribeToTaskRequest, TaskState

from agent.tokens import mint
from blocks import ids
from storage.facade import AsyncStore
from tests.agent.waiting import eventually
from tests.scenario.a2a_client import (
    answer,
    calling,
    choices_of,
    client_for,
    sent,
    task_message,
    task_of,
    token_for,
)
from tests.scenario.harness import policy_file, running, text_of
from tests.scenario.processes import bot_process
from workspace import run_workspace

TASK = "restart payments and check errors after"
APPROVERS = '[approvers]\nexec = ["U0BOB"]\n'


def _states(events: list[StreamResponse]) -> list[str]:
    names = []
    for event in events:
        if event.HasField("task"):
            names.append(TaskState.Name(event.task.status.state))
        elif event.HasField("status_update"):
            names.append(TaskState.Name(event.status_update.status.state))
        elif event.HasField("artifact_update"):
            names.append("artifact:" + event.artifact_update.artifact.name)
    return names


async def _collect(client: Client, task_id: str, into: list[StreamResponse]) -> None:
    async for event in client.subscribe(SubscribeToTaskRequest(id=task_id)):
        into.append(event)


async def test_subscribe_follows_a_slack_click_and_an_a2a_answer_to_the_result(tmp_path: Path) -> None:
    async with calling(tmp_path, streaming=True, config=policy_file(tmp_path, APPROVERS)) as (env, client):
        streamed = await sent(client, task_message(TASK))
        assert _states(streamed)[-1] == "TASK_STATE_INPUT_REQUIRED", "a streamed start ends where it waits"
        [response] = [e for e in await sent(client, answer(streamed[-1].task, choice="approve")) if e.HasField("task")]
        gate = response.task
        events: list[StreamResponse] = []
        following = asyncio.create_task(_collect(client, gate.id, events))
        await eventually(lambda: bool(events), "the task as it is now, first")

        review = await env.next_review(env.cards()[0])
        assert "needs approval" in text_of(review)
        await env.click("bob", review, ids.APPROVE)
        await eventually(lambda: len(events) > 1 and _states(events)[-1] == "TASK_STATE_INPUT_REQUIRED", "the result")
        result = await task_of(client, gate.id)
        assert choices_of(result)["anchor"] == "before_result"
        await sent(client, answer(result, choice="approve"))
        await asyncio.wait_for(following, 10)  # the stream ends with the task

    states = _states(events)
    assert states[0] == "TASK_STATE_INPUT_REQUIRED" and "TASK_STATE_WORKING" in states
    assert states[-2:] == ["artifact:result", "TASK_STATE_COMPLETED"]


async def test_a_task_waiting_for_an_answer_survives_a_restart_of_serve_and_is_answered_after(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        made = await token_for(env)
        async with client_for(env.bot.url, made.token) as client:
            [response] = await sent(client, task_message(TASK))
    waiting = response.task

    async with running(tmp_path) as env, client_for(env.bot.url, made.token) as client:  # the same database
        read = await task_of(client, waiting.id)
        assert read.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        assert choices_of(read)["review_id"] == choices_of(waiting)["review_id"]
        [moved] = await sent(client, answer(read, choice="approve"))
        assert moved.task.id == waiting.id
        assert choices_of(moved.task)["review_id"] != choices_of(waiting)["review_id"]
        assert len(await env.bot.deps.store.list_runs()) == 1


async def test_a_task_survives_kill_9_of_a_real_serve_process(tmp_path: Path) -> None:
    db = tmp_path / "tandem.db"
    made = mint("ci", ["runs:write"], "ops", 1_796_400_000.0)
    async with AsyncStore(db) as store:
        assert await store.create_token(made.stored)
    async with run_workspace() as ws:
        async with bot_process(ws, db) as first:
            base = ws.events_url.removesuffix("/slack/events")
            async with client_for(base, made.token) as client:
                [response] = await sent(client, task_message(TASK))
            first.kill()
            await first.wait()
        waiting = response.task

        async with bot_process(ws, db):
            base = ws.events_url.removesuffix("/slack/events")
            async with client_for(base, made.token) as client:
                read = await task_of(client, waiting.id)
                assert read.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
                assert choices_of(read)["review_id"] == choices_of(waiting)["review_id"]
                [moved] = await sent(client, answer(read, choice="approve"))
    assert moved.task.id == waiting.id and choices_of(moved.task)["anchor"] != "after_plan"
