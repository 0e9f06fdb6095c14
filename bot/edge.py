"""The HTTP edge in front of Bolt: every ``/slack/events`` request passes here before Bolt reads it.

1. Slack's ``ssl_check`` (a form with no team and no signature to speak of) gets an empty 200,
   as Bolt answers it.
2. The signature (:class:`slack_sdk.signature.SignatureVerifier`): missing, bad or older than
   five minutes is a 401; so is a body that cannot be checked (not UTF-8).
3. The body is read by :mod:`bot.envelope`, not by Bolt's parser: a body Tandem cannot read, or
   whose routing fields Bolt would trip over, is a 400 with a short reason.
4. Bolt gets the body as canonical JSON (``application/json``), re-signed with the same secret
   so its own signature check still runs. Bolt's parser reads any form containing the substring
   ``payload`` as an interaction, so ``/tandem check the payload limits`` used to reach no
   listener (404); as JSON the command's text is just a string. Bolt reads an interaction given
   as JSON exactly as one given in a ``payload=`` form, and a command's fields are all strings.

A malformed signed request therefore gets a 200 or a 4xx from here or from Bolt, never a 5xx.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from typing import Any

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response
from slack_bolt.async_app import AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_sdk.signature import SignatureVerifier

from bot import messages
from bot.envelope import BadRequest, check_envelope, is_ssl_check, read_body

log = logging.getLogger("tandem.bot")

TIMESTAMP, SIGNATURE = "x-slack-request-timestamp", "x-slack-signature"
OFF_LOOP = 64 * 1024
"""Bodies larger than this are read in a worker thread (a 1 MiB form takes ~150 ms to decode)."""


class Edge:
    """``handle`` is the aiohttp handler for ``/slack/events``; ``app`` answers what passes."""

    def __init__(self, app: AsyncApp, signing_secret: str) -> None:
        self.app = app
        self.verifier = SignatureVerifier(signing_secret)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()  # aiohttp answers 413 past its size limit (1 MiB)
        if is_ssl_check(raw):
            return web.Response(status=200)
        if not self.signed(raw, request.headers.get(TIMESTAMP, ""), request.headers.get(SIGNATURE, "")):
            log.info("refused a request with a missing, bad or stale Slack signature (%d bytes)", len(raw))
            return web.json_response({"error": "invalid request"}, status=401)
        headers = {name.lower(): value for name, value in request.headers.items()}
        try:
            if len(raw) > OFF_LOOP:  # decoding a large form is pure Python: let the loop run meanwhile
                bolt_request = await asyncio.to_thread(self.prepare, raw, headers, request.query_string)
            else:
                bolt_request = self.prepare(raw, headers, request.query_string)
        except BadRequest as exc:
            log.warning("refused a signed request Tandem cannot read (%d bytes): %s", len(raw), exc)
            return web.Response(status=400, text=messages.BAD_REQUEST.format(reason=exc))
        return await to_aiohttp_response(await self.app.async_dispatch(bolt_request))

    def prepare(self, raw: bytes, headers: dict[str, str], query: str) -> AsyncBoltRequest:
        """The request Bolt gets (see the module docstring); pure, so it may run in a worker thread."""
        body = read_body(raw, headers.get("content-type"))
        kind = check_envelope(body)
        canonical = json.dumps(body)
        timestamp = headers.get(TIMESTAMP, "")
        signature = self.verifier.generate_signature(timestamp=timestamp, body=canonical) or ""
        retry = {name: value for name, value in headers.items() if name.startswith("x-slack-retry-")}
        for_bolt: dict[str, str | Sequence[str]] = {
            "content-type": "application/json",
            TIMESTAMP: timestamp,
            SIGNATURE: signature,
            **retry,
        }
        try:
            # Bolt logs through the context while it reads (e.g. a modal with several response_urls).
            return AsyncBoltRequest(body=canonical, query=query, headers=for_bolt, context={"logger": self.app.logger})
        except Exception as exc:  # a gap in bot.envelope: say so, and still answer with a 4xx
            log.error("Bolt could not read a %s request the edge let through: %s", kind, exc, exc_info=exc)
            raise BadRequest("Bolt could not read it") from exc

    def signed(self, raw: bytes, timestamp: str, signature: str) -> bool:
        try:
            return self.verifier.is_valid(body=raw, timestamp=timestamp, signature=signature)
        except (ValueError, TypeError):  # a timestamp that is not a number, a body that is not UTF-8
            return False


class EdgeApp(AsyncApp):
    """Tandem's Bolt app: served over HTTP (:meth:`web_app`), requests pass :class:`Edge` first.

    Socket Mode hands Bolt parsed bodies and needs no edge. Bolt's own ``start()`` server would
    bypass it (Bolt still checks signatures there); Tandem serves :meth:`web_app` only.
    """

    def __init__(self, *, signing_secret: str, **kwargs: Any) -> None:
        super().__init__(signing_secret=signing_secret, **kwargs)
        self.edge = Edge(self, signing_secret)

    def web_app(self, path: str = "/slack/events", port: int = 3000) -> web.Application:
        application = web.Application()
        application.router.add_post(path, self.edge.handle)
        return application
