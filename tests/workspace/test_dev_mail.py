"""``tandem dev`` mails through a local SMTP server and shows what it sent on the workspace's ``/mail`` page,
with links that open on its bot."""

from __future__ import annotations

import asyncio
import html
import re
from pathlib import Path

import aiohttp

from agent.tokens import mint
from cli.dev import developing


async def test_dev_shows_an_email_handoff_mail_on_its_mail_page_with_a_working_link(tmp_path: Path) -> None:
    async with developing(port=0, db=tmp_path / "t.db") as dev, aiohttp.ClientSession() as http:
        made = mint("ci", ["handoffs:write"], "ops", dev.bot.deps.clock())
        assert await dev.bot.deps.store.create_token(made.stored)
        headers = {"Authorization": f"Bearer {made.token}"}
        ask = {"prompt": "Ship the <b>hotfix</b>?", "input_type": "confirm", "channel": "email:oncall@example.com"}
        async with http.post(f"{dev.bot.url}/api/v1/handoffs", json={**ask, "assignees": ["U0ALICE"]}, headers=headers):
            pass

        page = ""
        for _ in range(200):
            async with http.get(f"{dev.url}/mail") as answer:
                page = await answer.text()
            if "Ship the" in page:
                break
            await asyncio.sleep(0.05)

        assert "Tandem: Ship the &lt;b&gt;hotfix&lt;/b&gt;?" in page
        assert "To:</b> oncall@example.com" in page
        link = re.search(r"(http://127\.0\.0\.1:\d+/mail/open/[^\s<]+)", page)
        assert link is not None and link.group(1).startswith(dev.bot.url)
        async with http.get(html.unescape(link.group(1)), allow_redirects=False) as opened:
            assert opened.status == 303
            assert opened.headers["Location"].startswith("/inbox/items/")
