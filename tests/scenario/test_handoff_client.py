"""The Python client (:mod:`api.client`) against the real ``tandem serve`` app over HTTP: it returns the typed
answer a person clicked or typed in Slack (local Slack fake), raises typed errors when the handoff ends without
one, and a caller killed mid-wait that runs again with its idempotency key, while the server itself restarts,
gets the answer to the question it asked once."""

from __future__ import annotations

import asyncio
import json
import socket
import sys
from pathlib import Path

import pytest

from agent.tokens import mint
from api.client import HandoffCancelled, HandoffRejected, Handoffs, HandoffTimedOut
from blocks import ids
from storage.facade import AsyncStore
from tests.scenario.asking import ASK, api, asked_in_thread
from tests.scenario.harness import OPS, button_value, policy_file, text_of
from tests.scenario.processes import ROOT, bot_process
from workspace import WorkspaceState, run_workspace

FIELDS = {k: v for k, v in ASK.items() if k != "prompt"}


async def test_client_ask_returns_the_number_typed_in_the_slack_modal(tmp_path: Path) -> None:
    async with api(tmp_path) as (env, _, made), Handoffs(env.bot.url, made.token) as handoffs:
        number = {**FIELDS, "input_type": "number", "options": []}
        asking = asyncio.create_task(handoffs.ask("How many replicas?", **number, idempotency_key="k1"))  # type: ignore[arg-type]
        question = await asked_in_thread(env, "How many replicas?")
        await env.click("alice", question, ids.ANSWER_TEXT)
        modal = env.ws.state.open_modals("U0ALICE")[-1]
        await env.ws.submit_view("alice", modal.id, {ids.ANSWER_BLOCK: "3"})

        answer = await asyncio.wait_for(asking, 20)

        assert answer == 3 and isinstance(answer, int)


async def test_client_ask_cancelled_meanwhile_raises_cancelled(tmp_path: Path) -> None:
    async with api(tmp_path) as (env, http, made), Handoffs(env.bot.url, made.token) as handoffs:
        asking = asyncio.create_task(handoffs.ask("Roll back checkout to v41?", **FIELDS, idempotency_key="k2"))  # type: ignore[arg-type]
        await asked_in_thread(env, "Roll back checkout to v41?")
        [summary] = await env.bot.deps.store.list_runs()
        await handoffs.cancel(summary.id)

        with pytest.raises(HandoffCancelled, match="cancelled"):
            await asyncio.wait_for(asking, 20)


async def test_client_ask_past_its_deadline_raises_timed_out_with_the_default(tmp_path: Path) -> None:
    async with (
        api(tmp_path, config=policy_file(tmp_path, "")) as (env, _, made),
        Handoffs(env.bot.url, made.token) as h,
    ):
        late = {**FIELDS, "timeout": 1, "on_timeout": "use_default", "default": "keep v42"}
        asking = asyncio.create_task(h.ask("Roll back checkout to v41?", **late, idempotency_key="k3"))  # type: ignore[arg-type]
        await asked_in_thread(env, "Roll back checkout to v41?")
        await env.bot.deps.runtime.tick(now=env.bot.deps.clock() + 60)

        with pytest.raises(HandoffTimedOut) as ended:
            await asyncio.wait_for(asking, 20)
        assert ended.value.default == "keep v42"


async def test_client_ask_with_a_bad_field_raises_rejected_naming_it(tmp_path: Path) -> None:
    async with api(tmp_path) as (env, _, made), Handoffs(env.bot.url, made.token) as handoffs:
        with pytest.raises(HandoffRejected) as refused:
            await handoffs.ask("Roll back?", **{**FIELDS, "priority": "asap"})  # type: ignore[arg-type]
        assert (refused.value.status, refused.value.field) == (422, "priority")
        assert env.cards() == []


CALLER = """
import asyncio, json, sys
from api.client import Handoffs
async def main() -> None:
    async with Handoffs(sys.argv[1], sys.argv[2]) as handoffs:
        fields = json.loads(sys.argv[3])
        print(json.dumps(await handoffs.ask("Roll back checkout to v41?", idempotency_key="deploy-981", **fields)))
asyncio.run(main())
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def caller(url: str, token: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-c", CALLER, url, token, json.dumps(FIELDS), cwd=ROOT, stdout=asyncio.subprocess.PIPE
    )


async def test_client_caller_killed_and_run_again_with_its_key_while_serve_restarts_gets_the_answer_asked_once(
    tmp_path: Path,
) -> None:
    db, port = tmp_path / "tandem.db", free_port()
    made = mint("ci", ["handoffs:write", "handoffs:read"], "ops", 1_796_400_000.0)
    async with AsyncStore(db) as store:
        assert await store.create_token(made.stored)
    url = f"http://127.0.0.1:{port}"

    def asked(s: WorkspaceState) -> bool:
        cards = s.history(OPS)
        return bool(cards) and any("tandem.answer" in str(m.blocks) for m in s.thread(OPS, cards[0].ts))

    async with run_workspace() as ws:
        async with bot_process(ws, db, port=port):
            first = await caller(url, made.token)
            await ws.wait_until(asked, within=30)
            first.kill()  # the caller dies waiting; then the server goes too
            await first.wait()
        again = await caller(url, made.token)  # runs again with its key while nothing listens
        try:
            async with bot_process(ws, db, port=port):
                card = ws.state.history(OPS)[0]
                [question] = [m for m in ws.state.thread(OPS, card.ts) if "tandem.answer" in str(m.blocks)]
                action = f"{ids.ANSWER}.1"
                await ws.click("alice", OPS, question.ts, action, button_value(question, action))
                assert again.stdout is not None
                said = await asyncio.wait_for(again.stdout.readline(), 60)
        finally:
            if again.returncode is None:
                again.kill()
            await again.wait()

        assert json.loads(said) == "keep v42"
        assert len(ws.state.history(OPS)) == 1, "asked once: one card"
        assert "Roll back checkout to v41?" in text_of(question)
