"""What a failed ``auth.test`` means for the person waiting: reinstall, or just try again.

Bolt learns who the bot is from one ``auth.test`` before a request reaches a listener, and on
any failure tells the person the installation is gone and to reinstall. Most failures are not
that: a 5xx, a rate limit or a network error means Slack is not answering for a moment.
:class:`AuthCheck` runs just before Bolt's authorization (``before_authorize``): it makes the
call until it has answered once and words a failure by what it is. Once it has answered, the
token works, so a later failure of Bolt's own call is Slack not answering too.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
from slack_bolt.middleware.async_middleware import AsyncMiddleware
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse
from slack_sdk.errors import SlackApiError

from bot import messages

log = logging.getLogger("tandem.bot")

TOKEN_REFUSED = frozenset(
    {
        "not_authed",
        "invalid_auth",
        "account_inactive",
        "token_revoked",
        "token_expired",
        "no_permission",
        "not_allowed_token_type",
        "org_login_required",
        "ekm_access_denied",
        "team_access_not_granted",
        "team_disabled",
    }
)
"""``auth.test`` errors that mean the token itself is refused: only a reinstall (or a new token) helps."""
AUTH_WAIT = 2.0
"""Seconds ``auth.test`` may take, its client's retries included, before the request is answered with
:data:`bot.messages.SLACK_NOT_ANSWERING`: Slack drops an answer that comes after 3 seconds, and a slash
command's warning is that answer. (Two retries of a server error back off 1.5 to 3.5 seconds on their own.)"""
NO_AUTH_EVENTS = frozenset({"app_uninstalled", "tokens_revoked", "team_access_revoked"})
"""Events Bolt lets through without ``auth.test`` (the token is already gone)."""


def failure_text(exc: Exception) -> str:
    """What the person hears about a failed ``auth.test``."""
    error = str(exc.response.get("error") or "") if isinstance(exc, SlackApiError) else ""
    if error in TOKEN_REFUSED:
        return messages.INSTALLATION_REFUSED.format(error=error)
    return messages.SLACK_NOT_ANSWERING


def needs_auth(req: AsyncBoltRequest) -> bool:
    body = req.body or {}
    if body.get("type") in ("url_verification", "ssl_check"):
        return False
    event = body.get("event")
    return not (isinstance(event, dict) and event.get("type") in NO_AUTH_EVENTS)


class AuthCheck(AsyncMiddleware):
    """Ask ``auth.test`` until it answers once; a failure is told as :func:`failure_text` says."""

    def __init__(self) -> None:
        self.answered = False

    async def async_process(
        self, *, req: AsyncBoltRequest, resp: BoltResponse, next: Callable[[], Awaitable[BoltResponse]]
    ) -> BoltResponse:
        if self.answered or not needs_auth(req):
            return await next()
        try:
            async with asyncio.timeout(AUTH_WAIT):
                await req.context.client.auth_test()
        except (SlackApiError, aiohttp.ClientError, TimeoutError, OSError) as exc:
            log.error("auth.test failed, so a %s request was answered with a warning: %s", kind_of(req.body), exc)
            return await tell(req, failure_text(exc))
        self.answered = True
        return await next()


async def tell(req: AsyncBoltRequest, text: str) -> BoltResponse:
    """A slash command is answered in the response body; an interaction through its response URL."""
    body = req.body or {}
    respond = req.context.respond  # set when the request carries a response URL
    if "command" not in body and respond is not None:
        try:
            await respond(text)
            return BoltResponse(status=200, body="")
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            log.warning("could not tell the person through the response URL: %s", exc)
    return BoltResponse(status=200, body=text)


def kind_of(body: dict[str, Any] | None) -> str:
    """What a request is, for a log line: its type, "slash command", or "Slack"."""
    body = body or {}
    return str(body.get("type") or ("slash command" if "command" in body else "Slack"))[:40]
