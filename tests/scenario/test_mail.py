"""Mail through the outbox against a real local SMTP server: an ``email:`` handoff's question arrives by mail
with a link that opens its inbox item; reminders and escalations are mailed to the people a review waits on;
a server that is down is tried again until the mail is delivered, once."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp

from agent.models import MAIL
from mail.dev import Mailbox, local_smtp
from tests.scenario.asking import ASK, api, asked_in_thread
from tests.scenario.mailing import FROM, ONCALL, PUBLIC, html_of, link_path, mail_settings, text_of

EMAILED = {**ASK, "channel": f"email:{ONCALL}", "assignees": ["U0ALICE"]}


async def test_email_handoff_arrives_by_mail_with_a_link_to_its_inbox_item(tmp_path: Path) -> None:
    async with local_smtp(Mailbox()) as box, api(tmp_path, **mail_settings(box, tmp_path)) as (env, http, _):
        created = await (await http.post("/api/v1/handoffs", json={**EMAILED, "timeout": 3600})).json()

        [mail] = await box.mails(1)

        assert mail["To"] == ONCALL
        assert mail["From"] == FROM
        assert "Roll back checkout to v41?" in mail["Subject"]
        text = text_of(mail)
        assert "Asked: Roll back checkout to v41?" in text
        assert "Asked by: ci (software, with an API token)\nWhy: asked through the API" in text
        assert "Choices: roll back · keep v42" in text
        assert "Deadline: " in text and "none set" not in text
        assert "Replying to this mail does not answer it" in text
        state, _ = await env.bot.deps.store.load(created["id"])
        assert state.pending is not None
        async with aiohttp.ClientSession(base_url=env.bot.url) as browser:
            opened = await browser.get(link_path(mail), allow_redirects=False)
        assert opened.status == 303
        assert opened.headers["Location"] == f"/inbox/items/{state.pending.id}"
        read = await (await http.get(f"/api/v1/handoffs/{created['id']}")).json()
        assert read["status"] == "pending", "opening the link decided nothing"


async def test_email_handoff_with_a_hostile_prompt_is_escaped_in_the_html_part(tmp_path: Path) -> None:
    hostile = 'Approve? <a href="https://evil.example">click</a><script>alert(1)</script>'
    async with local_smtp(Mailbox()) as box, api(tmp_path, **mail_settings(box, tmp_path)) as (_, http, _):
        await http.post("/api/v1/handoffs", json={**EMAILED, "prompt": hostile})

        [mail] = await box.mails(1)

        html = html_of(mail)
        assert "<script>" not in html and 'href="https://evil.example"' not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
        assert hostile in text_of(mail)


async def test_email_handoff_to_a_malformed_address_is_refused_naming_the_field(tmp_path: Path) -> None:
    async with local_smtp(Mailbox()) as box, api(tmp_path, **mail_settings(box, tmp_path)) as (_, http, _):
        answer = await http.post("/api/v1/handoffs", json={**EMAILED, "channel": "email:oncall"})

        assert answer.status == 422
        assert "'email:oncall' is not one mail address" in (await answer.json())["detail"]


async def test_handoff_reminder_and_escalation_are_mailed_to_the_people_it_waits_on(tmp_path: Path) -> None:
    async with local_smtp(Mailbox()) as box, api(tmp_path, **mail_settings(box, tmp_path)) as (env, http, _):
        ask = {**ASK, "assignees": ["U0BOB"], "timeout": 100, "on_timeout": "reassign"}
        created = await (await http.post("/api/v1/handoffs", json=ask)).json()
        await asked_in_thread(env, "Roll back checkout to v41?")  # the chat message goes as before
        runtime = env.bot.deps.runtime
        state, _ = await env.bot.deps.store.load(created["id"])
        assert state.pending is not None and state.pending.remind_at is not None

        runtime.clock = lambda: state.pending.remind_at + 1  # type: ignore[union-attr]
        await runtime.tick()
        [reminder] = await box.mails(1)
        runtime.clock = lambda: state.pending.deadline + 1  # type: ignore[union-attr,operator]
        await runtime.tick()
        escalation = (await box.mails(2))[1]

        assert reminder["To"] == "bob@example.com"
        assert reminder["Subject"].startswith("Reminder: Roll back checkout to v41?")
        assert "Still waiting for a decision" in text_of(reminder)
        assert escalation["Subject"].startswith("Nobody decided in time: Roll back checkout to v41?")
        assert escalation["To"] == "bob@example.com"
        assert "it now waits on you" in text_of(escalation)
        assert link_path(escalation).startswith("/mail/open/")


async def test_mail_with_the_smtp_server_down_then_up_is_delivered_once(tmp_path: Path) -> None:
    box = Mailbox()
    async with local_smtp(box) as probe:
        url = probe.url  # a port nothing listens on once this block ends
    settings = {**mail_settings(box, tmp_path), "smtp_url": url}
    async with api(tmp_path, **settings) as (env, http, _):
        assert env.bot.mail is not None
        worker = env.bot.mail.worker
        worker.retry_scale = 0.01
        created = await (await http.post("/api/v1/handoffs", json=EMAILED)).json()

        state, _ = await env.bot.deps.store.load(created["id"])
        assert state.pending is not None

        for _ in range(400):  # the first try failed: the row waits for its next one
            rows = await env.bot.deps.store.due_deliveries(MAIL, 10.0**12, 0.0)
            if any(r.run_id == created["id"] and r.attempts > 0 for r in rows):
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the mail was never tried while the SMTP server was down")
        assert box.received == []
        host, port = url.removeprefix("smtp://").split(":")
        async with local_smtp(box, host, int(port)):
            [mail] = await box.mails(1, within=30)
            await worker.idle()

        assert "Roll back checkout to v41?" in text_of(mail)
        assert len(box.received) == 1
        assert await env.bot.deps.store.delivery_status(created["id"], "review", state.pending.id) == "sent"
        assert PUBLIC in text_of(mail)


async def test_email_handoff_on_a_server_without_mail_is_refused_and_nothing_is_asked(tmp_path: Path) -> None:
    async with api(tmp_path) as (env, http, _):
        answer = await http.post("/api/v1/handoffs", json={**EMAILED, "idempotency_key": "k1"})

        assert answer.status == 422
        detail = (await answer.json())["detail"]
        assert detail.startswith("channel: this server sends no mail (TANDEM_SMTP_URL is not set)")
        again = await http.post("/api/v1/handoffs", json={**ASK, "idempotency_key": "k2"})
        assert again.status == 201, "a chat handoff still works"
        runs = await env.bot.deps.store.list_runs()
        assert [r.id for r in runs] == [(await again.json())["id"]], "only the chat handoff was asked"


async def test_email_handoff_cancelled_before_its_mail_could_leave_is_never_mailed(tmp_path: Path) -> None:
    box = Mailbox()
    async with local_smtp(box) as probe:
        url = probe.url  # nothing listens here once this block ends
    async with api(tmp_path, **{**mail_settings(box, tmp_path), "smtp_url": url}) as (env, http, _):
        assert env.bot.mail is not None
        env.bot.mail.worker.retry_scale = 0.01
        created = await (await http.post("/api/v1/handoffs", json=EMAILED)).json()
        state, _ = await env.bot.deps.store.load(created["id"])
        assert state.pending is not None
        cancelled = await http.post(f"/api/v1/handoffs/{created['id']}/cancel")
        assert cancelled.status == 200

        host, port = url.removeprefix("smtp://").split(":")
        async with local_smtp(box, host, int(port)):
            await env.bot.mail.worker.idle(horizon=5.0)

        assert await env.bot.deps.store.delivery_status(created["id"], "review", state.pending.id) == "sent"
        assert box.received == [], "nobody is asked what is already decided"
