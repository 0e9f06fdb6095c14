"""Feishu alone (no Slack settings) mails too: a plan review's reminder goes to the requester's address as
well as into the chat, and its link opens on the same server."""

from __future__ import annotations

from pathlib import Path

import aiohttp

from mail.dev import Mailbox, local_smtp
from tests.scenario.feishu_env import running_feishu
from tests.scenario.mailing import link_path, mail_settings, text_of

POLICY = '[timeouts.after_plan]\nafter = "1h"\n\n[mail]\npeople = { ou_alice = "alice@example.com" }\n'


async def test_feishu_plan_review_reminder_is_mailed_to_the_requester_with_a_known_address(tmp_path: Path) -> None:
    async with (
        local_smtp(Mailbox()) as box,
        running_feishu(tmp_path, **mail_settings(box, tmp_path, POLICY)) as env,
    ):
        root, review = await env.plan_of("restart payments and check errors after")
        runtime = env.bot.deps.runtime
        [run] = await env.bot.deps.store.list_runs()
        state, _ = await env.bot.deps.store.load(run.id)
        assert state.pending is not None and state.pending.remind_at is not None
        remind_at = state.pending.remind_at

        runtime.clock = lambda: remind_at + 1
        await runtime.tick()
        [mail] = await box.mails(1)

        assert mail["To"] == "alice@example.com"
        assert mail["Subject"] == "Reminder: restart payments and check errors after"
        text = text_of(mail)
        assert "Asked by: ou_alice" in text and "Choices: Approve · Request changes · Cancel the run" in text
        async with aiohttp.ClientSession(base_url=env.bot.url) as browser:
            opened = await browser.get(link_path(mail), allow_redirects=False)
        assert opened.headers["Location"] == f"/inbox/items/{state.pending.id}"
