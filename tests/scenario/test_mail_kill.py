"""A real ``tandem serve`` killed (SIGKILL) after an ``email:`` handoff was asked, while its mail was on the
wire: the restarted process sends it again, and the SMTP server accepts it once."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import aiohttp

from agent.tokens import mint
from mail.dev import Mailbox, local_smtp
from storage.facade import AsyncStore
from tests.scenario.asking import ASK
from tests.scenario.mailing import FROM, ONCALL, PUBLIC, SECRET, link_path, text_of
from tests.scenario.processes import bot_process
from workspace import run_workspace


class Held(Mailbox):
    """Never answers the first mail (as if the server hung mid-send): the bot cannot know it went."""

    def __init__(self) -> None:
        super().__init__()
        self.tries = 0
        self.hung = asyncio.Event()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 - aiosmtpd's hook
        self.tries += 1
        if self.tries == 1:
            self.hung.set()
            await asyncio.Event().wait()
        return await super().handle_DATA(server, session, envelope)


async def test_email_handoff_mail_on_the_wire_when_serve_is_killed_is_sent_after_restart_once(tmp_path: Path) -> None:
    db = tmp_path / "tandem.db"
    made = mint("ci", ["handoffs:write", "handoffs:read"], "ops", 1_796_400_000.0)
    async with AsyncStore(db) as store:
        assert await store.create_token(made.stored)
    box = Held()
    async with run_workspace() as ws, local_smtp(box) as smtp:
        env = {
            "TANDEM_DELIVERY_LEASE": "2",
            "TANDEM_SMTP_URL": smtp.url,
            "TANDEM_MAIL_FROM": FROM,
            "TANDEM_MAIL_SECRET": SECRET,
            "TANDEM_PUBLIC_URL": PUBLIC,
        }
        async with bot_process(ws, db, **env) as first:
            base = ws.events_url.removesuffix("/slack/events")
            headers = {"Authorization": f"Bearer {made.token}"}
            async with aiohttp.ClientSession(base_url=base, headers=headers) as http:
                ask = {**ASK, "channel": f"email:{ONCALL}"}
                created = await (await http.post("/api/v1/handoffs", json=ask)).json()

            await asyncio.wait_for(box.hung.wait(), 20)  # created, its mail on the wire, never answered: it dies
            first.kill()
            await first.wait()

        async with bot_process(ws, db, **env):
            [mail] = await box.mails(1, within=30)
            base = ws.events_url.removesuffix("/slack/events")
            async with aiohttp.ClientSession(base_url=base) as browser:
                opened = await browser.get(link_path(mail), allow_redirects=False)

    assert box.tries == 2
    assert len(box.received) == 1, "accepted once"
    assert mail["To"] == ONCALL
    assert "Roll back checkout to v41?" in text_of(mail)
    assert opened.status == 303 and opened.headers["Location"].startswith("/inbox/items/")
    assert created["status"] == "pending"
