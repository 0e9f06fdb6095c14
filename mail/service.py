"""Mail in ``tandem serve``: the outbox worker of the mail channel, and what the link route needs."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, replace

from agent.delivery import DeliveryWorker
from agent.errors import ConfigError
from agent.models import MAIL, Origin
from agent.runtime import Runtime
from agent.settings import CoreSettings
from mail.links import Links
from mail.messages import UNSERVED
from mail.origin import MailTo
from mail.sender import MailSender, Outgoing
from mail.smtp import Smtp


@dataclass
class Mailing:
    """The mail channel's worker; ``links`` is None when no mail secret is set (the link route says so);
    ``base`` is where people open links (``tandem dev`` sets it once it listens)."""

    worker: DeliveryWorker
    links: Links | None
    base: str
    sends: bool = False  # whether TANDEM_SMTP_URL is set

    def unserved(self, origin: Origin) -> str | None:
        """Why a handoff cannot be asked at ``origin`` here (None: it can): an address, with mail not set up."""
        if isinstance(origin, MailTo) and not self.sends:
            return UNSERVED
        return None


def outgoing_of(settings: CoreSettings) -> tuple[Outgoing | None, Links | None]:
    """How mail goes out under ``settings`` (None without ``TANDEM_SMTP_URL``; its links under
    ``TANDEM_PUBLIC_URL``), and the link signer (None without ``TANDEM_MAIL_SECRET``); a setting mail needs and
    lacks is a :class:`ConfigError` naming it."""
    secret = settings.mail_secret.get_secret_value().strip() if settings.mail_secret is not None else ""
    links = Links(secret, settings.mail_link_ttl) if secret else None
    url = settings.smtp_url.get_secret_value().strip() if settings.smtp_url is not None else ""
    if not url:
        return None, links
    smtp = Smtp.parse(url)
    missing = [
        name
        for name, value in (
            ("TANDEM_MAIL_FROM", settings.mail_from.strip()),
            ("TANDEM_MAIL_SECRET", secret),
            ("TANDEM_PUBLIC_URL", settings.public_url.strip()),
        )
        if not value
    ]
    if missing:
        raise ConfigError(
            f"TANDEM_SMTP_URL is set, so mail needs {', '.join(missing)} too: the From address (e.g. "
            "Tandem <no-reply@example.com>), a long random secret that signs the links in mail, and the address "
            "people open tandem serve at (e.g. https://tandem.example.com)."
        )
    assert links is not None
    base = settings.public_url.strip().rstrip("/")
    return Outgoing(smtp, settings.mail_from.strip(), links, lambda: base), links


@asynccontextmanager
async def mailing(settings: CoreSettings, runtime: Runtime, *, poll: float, lease: float) -> AsyncIterator[Mailing]:
    """The mail worker on this loop (always running: rows written while mail was off are let go by it)."""
    outgoing, links = outgoing_of(settings)
    sender = MailSender(runtime.store, runtime.safety, None, runtime.clock)
    worker = DeliveryWorker(runtime.store, MAIL, sender, poll=poll, lease=lease)
    mail = Mailing(worker, links, settings.public_url.strip().rstrip("/"), sends=outgoing is not None)
    if outgoing is not None:  # links follow ``mail.base`` (``tandem dev`` learns its address late)
        sender.outgoing = replace(outgoing, base=lambda: mail.base)
    sender.worker = worker
    runtime.observers.append(sender)
    task = asyncio.get_running_loop().create_task(worker.run(), name="mail")
    try:
        yield mail
    finally:  # what is left stays in the outbox for the next start
        runtime.observers.remove(sender)
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task
