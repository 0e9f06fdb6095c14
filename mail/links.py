"""Signed, expiring links from a mail to its item in the web inbox (``itsdangerous``).

A link names the review it is about and when it was made; it is signed with ``TANDEM_MAIL_SECRET``. Opening
it only shows the item (after signing in): the link itself decides nothing, so a forwarded mail lets nobody
act who could not act anyway.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal
from urllib.parse import quote

from itsdangerous import BadSignature, SignatureExpired, TimestampSigner, URLSafeTimedSerializer

SALT = "tandem.mail.link"
OPEN = "/mail/open/"
"""Where a link is opened on ``tandem serve``: this prefix and the token."""


def inbox_path(review_id: str) -> str:
    """The web inbox's page of one item."""
    return f"/inbox/items/{quote(review_id, safe='')}"


@dataclass(frozen=True)
class Opened:
    review_id: str


@dataclass(frozen=True)
class NotOpened:
    why: Literal["expired", "forged"]


class Links:
    """Makes and checks links under one secret; a link works for ``ttl`` seconds."""

    def __init__(self, secret: str, ttl: float, clock: Callable[[], float] = time.time) -> None:
        if not secret:
            raise ValueError("links need a secret")

        class Stamped(TimestampSigner):
            def get_timestamp(self) -> int:
                return int(clock())

        self._signer = URLSafeTimedSerializer(secret, salt=SALT, signer=Stamped)
        self.ttl = ttl

    def token(self, review_id: str) -> str:
        return self._signer.dumps({"review": review_id})

    def url(self, base: str, review_id: str) -> str:
        """The link for ``review_id`` on the server at ``base`` (``https://tandem.example.com``)."""
        return f"{base.rstrip('/')}{OPEN}{self.token(review_id)}"

    def open(self, token: str) -> Opened | NotOpened:
        try:
            data = self._signer.loads(token, max_age=int(self.ttl))
        except SignatureExpired:
            return NotOpened("expired")
        except BadSignature:
            return NotOpened("forged")
        review = data.get("review") if isinstance(data, dict) else None
        return Opened(review) if isinstance(review, str) and review else NotOpened("forged")
