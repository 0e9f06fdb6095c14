"""Signing and sending requests to the bot exactly as Slack does.

Slack signs ``v0:{timestamp}:{body}`` with the app's signing secret (HMAC-SHA256)
and sends ``X-Slack-Signature: v0=<hex>`` and ``X-Slack-Request-Timestamp``;
apps reject requests older than five minutes. Slack waits three seconds for
the app's HTTP answer and retries events up to three times with
``X-Slack-Retry-Num`` / ``X-Slack-Retry-Reason``.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time
from typing import Any, Literal

import aiohttp
from pydantic import BaseModel, ConfigDict

Forgery = Literal["bad_signature", "stale_timestamp", "unsigned"]
Kind = Literal[
    "slash_command", "block_actions", "block_suggestion", "view_submission", "view_closed", "event_callback", "raw"
]

ACK_TIMEOUT = 3.0
STALE_BY = 10 * 60
USER_AGENT = "Slackbot 1.0 (+https://api.slack.com/robots)"


class Delivery(BaseModel):
    """One request the workspace sent the bot, and the bot's HTTP answer."""

    model_config = ConfigDict(extra="forbid")

    kind: Kind
    status: int
    body: str
    sent: dict[str, Any]
    """The payload as Slack built it: the form, the interaction payload or the event envelope."""
    headers: dict[str, str]
    """Headers the workspace sent (signature, timestamp, retry)."""
    error: str | None = None
    """What went wrong on Slack's side: ``operation_timeout``, or an error applying the bot's reply."""

    def reply(self) -> Any:
        """The bot's answer: decoded JSON, the plain text, or ``None`` for an empty body."""
        if not self.body.strip():
            return None
        try:
            return json.loads(self.body)
        except json.JSONDecodeError:
            return self.body

    @property
    def event_id(self) -> str | None:
        value = self.sent.get("event_id")
        return str(value) if value is not None else None


def signed_headers(
    body: str, *, signing_secret: str, content_type: str, forge: Forgery | None = None, now: float | None = None
) -> dict[str, str]:
    """Headers for ``body``; ``forge`` makes them wrong in one specific way."""
    timestamp = int(time.time() if now is None else now)
    if forge == "stale_timestamp":
        timestamp -= STALE_BY
    headers = {"Content-Type": content_type, "User-Agent": USER_AGENT}
    if forge == "unsigned":
        return headers
    secret = signing_secret + "-forged" if forge == "bad_signature" else signing_secret
    headers["X-Slack-Request-Timestamp"] = str(timestamp)
    headers["X-Slack-Signature"] = signature(secret, timestamp, body)
    return headers


def signature(signing_secret: str, timestamp: int, body: str) -> str:
    """``v0=`` + HMAC-SHA256 of ``v0:{timestamp}:{body}``, what slack_sdk's SignatureVerifier checks."""
    basestring = f"v0:{timestamp}:{body}".encode()
    return "v0=" + hmac.new(signing_secret.encode(), basestring, hashlib.sha256).hexdigest()


async def send(
    session: aiohttp.ClientSession,
    url: str,
    *,
    kind: Kind,
    body: str,
    sent: dict[str, Any],
    headers: dict[str, str],
    ack_timeout: float = ACK_TIMEOUT,
) -> Delivery:
    """POST ``body`` to the bot; a bot slower than ``ack_timeout`` gets ``operation_timeout`` like in Slack."""
    try:
        async with asyncio.timeout(ack_timeout):
            async with session.post(url, data=body.encode(), headers=headers) as response:
                text = await response.text()
                status = response.status
    except TimeoutError:
        return Delivery(kind=kind, status=0, body="", sent=sent, headers=headers, error="operation_timeout")
    return Delivery(kind=kind, status=status, body=text, sent=sent, headers=headers)


def decode_reply(body: str) -> dict[str, Any] | None:
    """The bot's HTTP answer as Slack applies it: a JSON object, or plain text taken as a message's text."""
    if not body.strip():
        return None
    try:
        reply = json.loads(body)
    except json.JSONDecodeError:
        return {"text": body}
    return reply if isinstance(reply, dict) else {"text": str(reply)}
