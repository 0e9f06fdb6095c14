"""Any MCP client asks Tandem's people, through either door: an SDK client starts ``tandem mcp`` as a process on
the bot's database (stdio), or calls ``/mcp`` on the real ``tandem serve`` app with a token (streamable HTTP); the
app (local Slack fake) posts the question, a person clicks, and the tool call returns the answer typed."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from agent.tokens import mint
from blocks import ids
from tests.scenario.asking import call, mcp_over_http
from tests.scenario.harness import OPS, Env, asked_in_thread, buttons_of, policy_file, running, text_of

ROOT = Path(__file__).resolve().parents[2]


def on_the_bots_database(env: Env) -> dict[str, str]:
    """The environment of a ``tandem`` process on ``env``'s database, with none of this process's settings."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "TANDEM_"))}
    return {**clean, "PYTHONPATH": str(ROOT), "TANDEM_DB": str(env.db)}


@asynccontextmanager
async def mcp_client(env: Env, tmp_path: Path, *args: str) -> AsyncIterator[Client]:
    """``tandem mcp`` as a fresh process on ``env``'s database, with an SDK client connected to it."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "cli.main", "mcp", *args],
        env=on_the_bots_database(env),
        cwd=str(tmp_path),
    )
    async with Client(params, read_timeout_seconds=60) as client:
        yield client


DOORS = ["stdio", "http"]


@asynccontextmanager
async def mcp_door(door: str, env: Env, tmp_path: Path) -> AsyncIterator[tuple[Client, str]]:
    """An SDK client through ``door``, and who the audit trail says it is: ``tandem mcp --as coder`` over stdio,
    or ``/mcp`` with the token ``coder`` over HTTP."""
    if door == "stdio":
        async with mcp_client(env, tmp_path, "--as", "coder") as client:
            yield client, "mcp:coder"
        return
    made = mint("coder", ["handoffs:write"], "ops", env.bot.deps.clock())
    assert await env.bot.deps.store.create_token(made.stored)
    async with mcp_over_http(env.bot.url, made.token) as client:
        yield client, "token:coder"


@pytest.mark.parametrize("door", DOORS)
async def test_mcp_ask_human_is_shown_in_slack_and_returns_the_answer_alice_clicked(door: str, tmp_path: Path) -> None:
    async with running(tmp_path) as env, mcp_door(door, env, tmp_path) as (client, who):
        asked = {"question": "Roll back checkout to v41?", "channel": OPS, "assignees": ["U0ALICE"]}
        asked |= {"input_type": "choice", "options": ["roll back", "keep v42"]}
        waiting = asyncio.create_task(call(client, "ask_human", asked))

        question = await asked_in_thread(env, "Roll back checkout to v41?")
        assert f"asked by {who} over MCP" in text_of(question), "alice sees who asks"
        assert not waiting.done(), "the call waits for the answer"
        await env.click("alice", question, f"{ids.ANSWER}.0")

        got = await asyncio.wait_for(waiting, 20)
        assert (got["status"], got["answer"], got["by"]) == ("resolved", "roll back", "U0ALICE")
        assert got["at"] is not None
        events = await env.bot.deps.store.events(got["id"])
        assert any(who in str(e) for e in events), "the audit trail says which MCP client asked"


@pytest.mark.parametrize(("door", "button", "approved"), [("stdio", "no", False), ("http", "yes", True)])
async def test_mcp_request_approval_answered_returns_approved_true_or_false(
    door: str, button: str, approved: bool, tmp_path: Path
) -> None:
    async with running(tmp_path) as env, mcp_door(door, env, tmp_path) as (client, _):
        asked = {"action": "deploy api v42 to prod", "details": "12 files changed", "risk": "high"}
        waiting = asyncio.create_task(
            call(client, "request_approval", {**asked, "channel": OPS, "approvers": ["U0ALICE"]})
        )

        question = await asked_in_thread(env, "deploy api v42 to prod")
        assert "12 files changed" in text_of(question) and "high" in text_of(question), "alice sees what she approves"
        said = next(b["action_id"] for b in buttons_of(question) if b["text"]["text"].lower().startswith(button))
        await env.click("alice", question, said)

        got = await asyncio.wait_for(waiting, 20)
        assert (got["status"], got["approved"], got["by"]) == ("resolved", approved, "U0ALICE")


async def test_mcp_same_idempotency_key_returns_the_same_request_with_its_answer(tmp_path: Path) -> None:
    async with (
        running(tmp_path) as env,
        mcp_client(env, tmp_path, "--as", "coder", "--progress-every", "0.3") as client,
    ):
        asked = {"question": "Which region first?", "channel": OPS, "assignees": ["U0ALICE"]}
        asked |= {"input_type": "choice", "options": ["eu", "us"], "idempotency_key": "rollout-7"}
        progress: list[float] = []
        twice = asyncio.Event()

        async def noted(done: float, total: float | None, message: str | None) -> None:
            progress.append(done)
            if len(progress) >= 2:
                twice.set()

        first = asyncio.create_task(call(client, "ask_human", asked, progress_callback=noted))
        again = asyncio.create_task(call(client, "ask_human", asked))
        question = await asked_in_thread(env, "Which region first?")
        await asyncio.wait_for(twice.wait(), 10)  # the client hears the call is alive while it waits
        await env.click("alice", question, f"{ids.ANSWER}.1")

        one, two = await asyncio.wait_for(asyncio.gather(first, again), 20)
        assert one["id"] == two["id"] and (one["answer"], two["answer"]) == ("us", "us")
        assert len(env.cards()) == 1, "asked once"
        later = await asyncio.wait_for(call(client, "ask_human", asked), 20)
        assert (later["id"], later["status"], later["answer"]) == (one["id"], "resolved", "us")


async def test_mcp_lists_both_tools_and_a_bad_field_is_a_tool_error_naming_it(tmp_path: Path) -> None:
    async with running(tmp_path) as env, mcp_client(env, tmp_path, "--as", "coder") as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        assert set(listed) == {"ask_human", "request_approval"}
        assert "approvers" in listed["request_approval"].input_schema["properties"]

        bad = await client.call_tool("ask_human", {"question": "Go?", "channel": "general", "assignees": ["U0ALICE"]})
        choice = {"question": "Go?", "channel": OPS, "assignees": ["U0ALICE"], "input_type": "choice"}
        no_options = await client.call_tool("ask_human", choice)

        assert bad.is_error and "channel" in str(bad.content) and "not the id of a channel" in str(bad.content)
        assert no_options.is_error and "options" in str(no_options.content)
        assert env.cards() == []


@pytest.mark.parametrize("door", DOORS)
async def test_mcp_ask_human_past_its_deadline_returns_timed_out_with_the_default(door: str, tmp_path: Path) -> None:
    async with (
        running(tmp_path, config=policy_file(tmp_path, "")) as env,
        mcp_door(door, env, tmp_path) as (client, _),
    ):
        asked: dict[str, Any] = {"question": "Roll back checkout to v41?", "channel": OPS, "assignees": ["U0ALICE"]}
        asked |= {"input_type": "choice", "options": ["roll back", "keep v42"]}
        asked |= {"timeout": 1, "on_timeout": "use_default", "default": "keep v42"}
        waiting = asyncio.create_task(call(client, "ask_human", asked))
        await asked_in_thread(env, "Roll back checkout to v41?")

        env.bot.deps.runtime.clock = lambda: 10.0**10  # past the deadline
        await env.bot.deps.runtime.tick()

        got = await asyncio.wait_for(waiting, 20)
        assert (got["status"], got["answer"]) == ("timed_out", "keep v42")


async def test_mcp_client_that_went_away_mid_wait_calls_again_with_its_key_and_gets_the_answer(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        asked = {"question": "Drain node-7 now?", "channel": OPS, "assignees": ["U0ALICE"]}
        asked |= {"input_type": "choice", "options": ["drain", "wait"], "idempotency_key": "node-7"}
        async with mcp_client(env, tmp_path, "--as", "coder") as gone:
            cut = asyncio.create_task(call(gone, "ask_human", asked))
            question = await asked_in_thread(env, "Drain node-7 now?")
            cut.cancel()  # the client goes away mid-wait: its process is stopped with it

        async with mcp_client(env, tmp_path, "--as", "coder") as back:
            again = asyncio.create_task(call(back, "ask_human", asked))
            await env.click("alice", question, f"{ids.ANSWER}.0")
            got = await asyncio.wait_for(again, 20)

        assert (got["status"], got["answer"], got["by"]) == ("resolved", "drain", "U0ALICE")
        assert len(env.cards()) == 1, "asked once"


@pytest.mark.parametrize("door", DOORS)
async def test_mcp_ask_human_answered_by_a_reply_in_the_question_thread_returns_the_typed_text(
    door: str, tmp_path: Path
) -> None:
    async with running(tmp_path) as env, mcp_door(door, env, tmp_path) as (client, _):
        asked = {"question": "Which ticket tracks the checkout outage?", "channel": OPS, "assignees": ["U0ALICE"]}
        waiting = asyncio.create_task(call(client, "ask_human", asked))
        await asked_in_thread(env, "Which ticket tracks the checkout outage?")
        assert not waiting.done(), "the call waits for the answer"

        await env.ws.reply_in_thread("alice", OPS, env.cards()[0].ts, "INC-4821")

        got = await asyncio.wait_for(waiting, 20)
        assert (got["status"], got["answer"], got["by"]) == ("resolved", "INC-4821", "U0ALICE")


async def tandem_answer(env: Env, tmp_path: Path, *args: str) -> tuple[int, str]:
    """``tandem answer ARGS`` as its own process on ``env``'s database (without blocking the bot's loop)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        *["-m", "cli.main", "answer", *args],
        env=on_the_bots_database(env),
        cwd=str(tmp_path),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, out.decode()


@pytest.mark.parametrize("door", DOORS)
async def test_mcp_ask_human_answered_from_the_cli_returns_that_answer_by_that_person(
    door: str, tmp_path: Path
) -> None:
    async with running(tmp_path) as env, mcp_door(door, env, tmp_path) as (client, _):
        asked = {"question": "Roll back checkout to v41?", "channel": OPS, "assignees": ["U0ALICE"]}
        asked |= {"input_type": "choice", "options": ["roll back", "keep v42"]}
        waiting = asyncio.create_task(call(client, "ask_human", asked))
        await asked_in_thread(env, "Roll back checkout to v41?")
        [run] = await env.bot.deps.store.list_runs()

        code, said = await tandem_answer(env, tmp_path, run.id, "--answer", "roll back", "--as", "U0BOB")
        assert code != 0 and not waiting.done(), "bob is not asked, so his answer changes nothing"
        assert "Only @U0ALICE can answer this question. Nothing changed." in said
        code, said = await tandem_answer(env, tmp_path, run.id, "--answer", "keep v42", "--as", "U0ALICE")
        assert code == 0, said

        got = await asyncio.wait_for(waiting, 20)
        assert (got["id"], got["status"], got["answer"], got["by"]) == (run.id, "resolved", "keep v42", "U0ALICE")
