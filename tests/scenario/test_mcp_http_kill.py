"""A real ``tandem serve`` killed (SIGKILL) while an MCP client's call over ``/mcp`` waits for a person: the call
ends with an error (it never hangs), and the same call with its idempotency key, made to the restarted process,
finds the same question and returns the answer once a person clicks, or its timeout's outcome if the deadline
passed meanwhile. Asked once."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from agent.tokens import mint
from blocks import ids
from storage.facade import AsyncStore
from tests.scenario.asking import call, mcp_over_http
from tests.scenario.harness import OPS, button_value, text_of
from tests.scenario.processes import bot_process
from workspace import Workspace, WorkspaceState, run_workspace

ASKED = {"question": "Drain node-7 now?", "channel": OPS, "assignees": ["U0ALICE"], "input_type": "choice"}
ASKED |= {"options": ["drain", "wait"], "idempotency_key": "node-7"}


def innermost(error: BaseException) -> BaseException:
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def served(ws: Workspace) -> str:
    """The base URL of the bot process ``ws`` sends its events to."""
    assert ws.events_url is not None
    return ws.events_url.removesuffix("/slack/events")


def asked(state: WorkspaceState) -> bool:
    cards = state.history(OPS)
    return bool(cards) and any("tandem.answer" in str(m.blocks) for m in state.thread(OPS, cards[0].ts))


async def killed_while_waiting(ws: Workspace, db: Path, token: str, arguments: dict[str, Any]) -> None:
    """``tandem serve`` on ``db``, killed once the question is posted while a client's call waits for it."""
    async with bot_process(ws, db) as first:

        async def killed_once_asked() -> None:
            await ws.wait_until(asked, within=20)
            first.kill()  # SIGKILL while the call waits
            await first.wait()

        killing = asyncio.create_task(killed_once_asked())
        with pytest.raises(BaseException) as cut:  # noqa: PT011 (the client's own error, wrapped in groups)
            async with mcp_over_http(served(ws), token) as client:
                await asyncio.wait_for(call(client, "ask_human", arguments), 30)
        await killing
    assert "disconnected" in str(innermost(cut.value)), "the call ends saying the server went away"


async def with_token(db: Path) -> str:
    made = mint("coder", ["handoffs:write"], "ops", 1_796_400_000.0)
    async with AsyncStore(db) as store:
        assert await store.create_token(made.stored)
    return made.token


async def test_mcp_http_call_waiting_when_serve_is_killed_is_made_again_with_its_key_and_returns_the_answer(
    tmp_path: Path,
) -> None:
    db = tmp_path / "tandem.db"
    token = await with_token(db)
    async with run_workspace() as ws:
        await killed_while_waiting(ws, db, token, ASKED)

        async with bot_process(ws, db) as second:
            async with mcp_over_http(served(ws), token) as client:
                again = asyncio.create_task(call(client, "ask_human", ASKED))
                card = ws.state.history(OPS)[0]
                [question] = [m for m in ws.state.thread(OPS, card.ts) if "tandem.answer" in str(m.blocks)]
                assert "Drain node-7 now?" in text_of(question)
                action = f"{ids.ANSWER}.0"
                await ws.click("alice", OPS, question.ts, action, button_value(question, action))
                got = await asyncio.wait_for(again, 30)
            assert second.returncode is None

    assert (got["status"], got["answer"], got["by"]) == ("resolved", "drain", "U0ALICE")
    assert len(ws.state.history(OPS)) == 1, "asked once"


async def test_mcp_http_call_whose_deadline_passed_while_serve_was_down_returns_timed_out_with_the_default(
    tmp_path: Path,
) -> None:
    db = tmp_path / "tandem.db"
    token = await with_token(db)
    arguments = {**ASKED, "idempotency_key": "node-8", "timeout": 2, "on_timeout": "use_default", "default": "wait"}
    async with run_workspace() as ws:
        await killed_while_waiting(ws, db, token, arguments)
        async with (
            bot_process(ws, db, TANDEM_SCHEDULER_INTERVAL="0.2"),
            mcp_over_http(served(ws), token) as client,
        ):
            got = await asyncio.wait_for(call(client, "ask_human", arguments), 30)

    assert (got["status"], got["answer"]) == ("timed_out", "wait")
    assert len(ws.state.history(OPS)) == 1, "asked once"
