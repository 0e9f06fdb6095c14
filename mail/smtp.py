"""The SMTP server Tandem sends through (``TANDEM_SMTP_URL``) and one send to it (``aiosmtplib``).

``smtp://user:pass@host:587?starttls=1`` (STARTTLS), ``smtps://user:pass@host:465`` (TLS from the start),
``smtp://host:25`` (plain, e.g. a relay on the same network). User and password are URL-encoded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from email.message import EmailMessage
from urllib.parse import parse_qs, unquote, urlsplit

import aiosmtplib

from agent.delivery import DeliveryFailed
from agent.errors import ConfigError

TIMEOUT = 30.0
"""Seconds the SMTP server has for one mail before the send counts as failed (and is tried again)."""
_TRUE = ("1", "true", "yes", "on")


@dataclass(frozen=True)
class Smtp:
    host: str
    port: int
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    use_tls: bool = False
    start_tls: bool = False

    @classmethod
    def parse(cls, url: str) -> Smtp:
        """``url`` as an SMTP server, or a :class:`ConfigError` saying what is wrong with it."""
        try:
            parts = urlsplit(url.strip())
            port = parts.port
        except ValueError as exc:
            raise ConfigError(
                f"TANDEM_SMTP_URL is not a URL ({exc}); e.g. smtp://user:pass@host:587?starttls=1"
            ) from None
        if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
            raise ConfigError(
                "TANDEM_SMTP_URL must look like smtp://user:pass@host:587?starttls=1 or smtps://user:pass@host:465"
            )
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        tls = parts.scheme == "smtps"
        return cls(
            host=parts.hostname,
            port=port or (465 if tls else 25),
            username=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password else None,
            use_tls=tls,
            start_tls=not tls and query.get("starttls", "").lower() in _TRUE,
        )

    async def send(self, message: EmailMessage) -> None:
        """Hand ``message`` to the server: a :class:`DeliveryFailed` when it did not take it (permanent when it
        refused it for good, a 5xx; anything else is tried again)."""
        try:
            await aiosmtplib.send(
                message,
                hostname=self.host,
                port=self.port,
                username=self.username,
                password=self.password,
                use_tls=self.use_tls,
                start_tls=self.start_tls,
                timeout=TIMEOUT,
            )
        except aiosmtplib.SMTPRecipientsRefused as exc:
            codes = ", ".join(f"{r.recipient} {r.code}" for r in exc.recipients)
            permanent = all(500 <= r.code < 600 for r in exc.recipients)
            raise DeliveryFailed(
                f"SMTP {self.host}:{self.port} refused every recipient ({codes})", permanent=permanent
            ) from None
        except aiosmtplib.SMTPResponseException as exc:
            permanent = 500 <= exc.code < 600
            raise DeliveryFailed(
                f"SMTP {self.host}:{self.port} answered {exc.code} {exc.message}", permanent=permanent
            ) from None
        except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
            raise DeliveryFailed(f"SMTP {self.host}:{self.port} failed: {type(exc).__name__} {exc}".strip()) from None
