"""Mail in ``tandem dev``: a local SMTP server (``aiosmtpd``) that keeps what Tandem sends, and a page of the
local workspace (``/mail``) that shows it. Nothing leaves the machine. ``aiosmtpd`` is a development
dependency, imported only here."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from html import escape
from typing import Any

from aiohttp import web

PAGE = "/mail"


@dataclass
class Mailbox:
    """What the local SMTP server received, oldest first (an aiosmtpd handler)."""

    received: list[EmailMessage] = field(default_factory=list)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    url: str = ""

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 - aiosmtpd's hook
        content = envelope.original_content or envelope.content
        parsed = message_from_bytes(content if isinstance(content, bytes) else content.encode(), policy=policy.default)
        assert isinstance(parsed, EmailMessage)
        self.received.append(parsed)
        self.arrived.set()
        return "250 Message accepted for delivery"

    async def mails(self, count: int, within: float = 20.0) -> list[EmailMessage]:
        """The first ``count`` mails, once they are here (a TimeoutError after ``within`` seconds)."""
        async with asyncio.timeout(within):
            while len(self.received) < count:
                self.arrived.clear()
                await self.arrived.wait()
        return self.received[:count]


@asynccontextmanager
async def local_smtp(box: Mailbox, host: str = "127.0.0.1", port: int = 0) -> AsyncIterator[Mailbox]:
    """An SMTP server for ``box`` on ``host:port`` (0: a free port) until the block ends; ``box.url`` is its
    ``TANDEM_SMTP_URL``."""
    from aiosmtpd.smtp import SMTP

    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: SMTP(box, hostname="tandem.local"), host, port)
    bound = server.sockets[0].getsockname()[1]
    box.url = f"smtp://{host}:{bound}"
    try:
        yield box
    finally:
        server.close()
        await server.wait_closed()


def installed() -> bool:
    """Whether ``aiosmtpd`` is there (a development dependency; without it ``tandem dev`` mails nothing)."""
    import importlib.util

    return importlib.util.find_spec("aiosmtpd") is not None


def dev_settings(box: Mailbox) -> dict[str, str]:
    """The bot's mail settings for ``tandem dev``: the local server, a fresh secret for links."""
    return {
        "smtp_url": box.url,
        "mail_from": "Tandem <no-reply@tandem.local>",
        "mail_secret": secrets.token_urlsafe(32),
        "public_url": "http://127.0.0.1",  # replaced by the bot's own address once it listens
    }


def add_page(app: web.Application, box: Mailbox) -> None:
    """``GET /mail`` on the workspace: every mail Tandem sent, newest first, as its text and its HTML part."""

    async def page(request: web.Request) -> web.Response:
        items = "".join(_item(mail) for mail in reversed(box.received)) or "<p>No mail sent yet.</p>"
        html = (
            '<!doctype html><html><head><meta charset="utf-8"><title>Mail Tandem sent</title></head>'
            '<body style="font-family:sans-serif;max-width:60em;margin:2em auto">'
            f"<h1>Mail Tandem sent</h1><p>{len(box.received)} mail(s), through a local SMTP server: "
            f"nothing leaves this machine.</p>{items}</body></html>"
        )
        return web.Response(text=html, content_type="text/html")

    app.router.add_get(PAGE, page)


def _item(mail: EmailMessage) -> str:
    text = mail.get_body(preferencelist=("plain",))
    html = mail.get_body(preferencelist=("html",))
    shown = escape(html.get_content()) if html is not None else ""
    return (
        '<section style="border:1px solid #ccc;margin:1em 0;padding:1em">'
        f"<h2>{escape(str(mail['Subject']))}</h2>"
        f"<p><b>To:</b> {escape(str(mail['To']))} · <b>From:</b> {escape(str(mail['From']))} · "
        f"{escape(str(mail['Date']))}</p>"
        f"<pre style='white-space:pre-wrap'>{escape(text.get_content()) if text is not None else ''}</pre>"
        f'<details><summary>HTML part</summary><iframe sandbox srcdoc="{shown}" '
        'style="width:100%;height:20em;border:0"></iframe></details></section>'
    )
