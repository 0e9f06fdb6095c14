"""Helpers for the A2A door on the real ``tandem serve`` app: a token, the SDK's own client presenting it over
real HTTP, and the messages a caller sends (a task, an answer)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
from a2a.client import Client, ClientConfig, create_client
from a2a.helpers.proto_helpers import get_data_parts, new_data_part, new_text_part
from a2a.types import GetTaskRequest, Message, Role, SendMessageRequest, StreamResponse, Task
from google.protobuf.struct_pb2 import Struct

from agent.models.tokens import Scope
from agent.tokens import Minted, mint
from tests.scenario.harness import OPS, Env, running

__all__ = ["answer", "calling", "choices_of", "client_for", "sent", "task_message", "task_of", "token_for", "until"]


async def token_for(env: Env, name: str = "ci", scopes: tuple[Scope, ...] = ("runs:write",), **more: Any) -> Minted:
    made = mint(name, list(scopes), "ops", env.bot.deps.clock(), **more)
    assert await env.bot.deps.store.create_token(made.stored)
    return made


@asynccontextmanager
async def client_for(base_url: str, token: str, *, streaming: bool = False) -> AsyncIterator[Client]:
    """The SDK's client for the agent at ``base_url`` (its card read from there), presenting ``token`` (if any)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(headers=headers, timeout=30) as http:
        config = ClientConfig(streaming=streaming, httpx_client=http)
        client = await create_client(base_url, client_config=config)
        async with client:
            yield client


@asynccontextmanager
async def calling(tmp_path: Path, *, streaming: bool = False, **extra: Any) -> AsyncIterator[tuple[Env, Client]]:
    """The real ``tandem serve`` app against the local Slack fake, and an SDK client with a ``runs:write`` token."""
    async with running(tmp_path, **extra) as env:
        made = await token_for(env)
        async with client_for(env.bot.url, made.token, streaming=streaming) as client:
            yield env, client


def task_message(text: str, channel: str = OPS) -> Message:
    metadata = Struct()
    metadata.update({"channel": channel})
    return Message(role=Role.ROLE_USER, message_id=f"m-{text[:20]}", parts=[new_text_part(text)], metadata=metadata)


def answer(task: Task, **fields: Any) -> Message:
    """An answer to ``task``'s pending review (its ``review_id`` unless given), with ``fields`` as data."""
    data = {"review_id": choices_of(task)["review_id"], **fields}
    return Message(
        role=Role.ROLE_USER,
        message_id=f"a-{data}"[:60],
        task_id=task.id,
        context_id=task.context_id,
        parts=[new_data_part(data)],
    )


def choices_of(task: Task) -> dict[str, Any]:
    """The data of the question ``task`` waits on (its review id and choices)."""
    [data] = get_data_parts(task.status.message.parts)
    assert isinstance(data, dict)
    return data


async def sent(client: Client, message: Message) -> list[StreamResponse]:
    """Every response ``SendMessage`` gave for ``message``."""
    return [r async for r in client.send_message(SendMessageRequest(message=message))]


async def until(check: Callable[[], Awaitable[bool]], within: float = 10.0) -> None:
    """Wait for ``check`` to hold (a positive signal), for at most ``within`` seconds."""
    async with asyncio.timeout(within):
        while not await check():  # noqa: ASYNC110 (the task is read over HTTP: nothing to wait on here)
            await asyncio.sleep(0.05)


async def task_of(client: Client, task_id: str) -> Task:
    return await client.get_task(GetTaskRequest(id=task_id))
