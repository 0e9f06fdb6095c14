"""A real ``tandem serve`` killed (SIGKILL) after a handoff was decided, while its webhook was on the wire:
the restarted process sends it again (same event id, signed), so the caller hears of the decision."""

from __future__ import annotations

from pathlib import Path

import aiohttp

from agent.tokens import mint
from blocks import ids
from storage.facade import AsyncStore
from tests.scenario.asking import ASK
from tests.scenario.harness import OPS, button_value, text_of
from tests.scenario.processes import bot_process
from tests.scenario.webhook_receiver import receiving
from workspace import WorkspaceState, run_workspace

LEASE = {"TANDEM_DELIVERY_LEASE": "2"}


async def test_handoff_webhook_on_the_wire_when_serve_is_killed_is_sent_again_after_restart(tmp_path: Path) -> None:
    db = tmp_path / "tandem.db"
    made = mint("ci", ["handoffs:write", "handoffs:read"], "ops", 1_796_400_000.0)
    async with AsyncStore(db) as store:
        assert await store.create_token(made.stored)
    headers = {"Authorization": f"Bearer {made.token}"}
    async with run_workspace() as ws, receiving(made.webhook_secret, hold=1) as receiver:
        async with bot_process(ws, db, **LEASE) as first:
            base = ws.events_url.removesuffix("/slack/events")
            async with aiohttp.ClientSession(base_url=base, headers=headers) as http:
                created = await (await http.post("/api/v1/handoffs", json={**ASK, "callback_url": receiver.url})).json()

            def question(s: WorkspaceState) -> bool:
                cards = s.history(OPS)
                return bool(cards) and any("tandem.answer" in str(m.blocks) for m in s.thread(OPS, cards[0].ts))

            await ws.wait_until(question, within=20)
            card = ws.state.history(OPS)[0]
            [asked] = [m for m in ws.state.thread(OPS, card.ts) if "tandem.answer" in str(m.blocks)]
            assert "Roll back checkout to v41?" in text_of(asked)
            action = f"{ids.ANSWER}.0"
            await ws.click("alice", OPS, asked.ts, action, button_value(asked, action))

            await receiver.posts(1, within=20)  # decided, and its webhook on the wire, never answered: then it dies
            first.kill()
            await first.wait()

        async with bot_process(ws, db, **LEASE):
            again = (await receiver.posts(2, within=30))[1]

    assert again.verified
    assert again.headers["X-Tandem-Event-Id"] == receiver.received[0].headers["X-Tandem-Event-Id"]
    assert (again.json["id"], again.json["status"], again.json["answer"]) == (created["id"], "resolved", "roll back")
