"""The HTTP edge in front of Bolt: every ``/slack/events`` request passes here before Bolt reads it.

1. Slack's ``ssl_check`` (a form with no team and no signature to speak of) gets an empty 200,
   as Bolt answers it.
2. The signature (:class:`slack_sdk.signature.SignatureVerifier`): missing, bad or older than
   five minutes is a 401; so is a body that cannot be checked (not UTF-8).
3. The body is read by :mod:`bot.envelope`, not by Bolt's parser: a body Tandem cannot read, or
   whose routing fields Bolt would trip over, is a 400 with a short reason.
4. Bolt gets the body already read, as a dict, the way Socket Mode hands it over: it neither
   parses the body a second time nor checks a signature already checked in step 2 (on a
   button's ~10 KB form, the two made up half of the edge's time per request). Bolt's own parser
   reads any form containing the substring ``payload`` as an interaction, so
   ``/tandem check the payload limits`` used to reach no listener (404); read here, the command's
   text is just a string. A command's fields are all strings, and an interaction is the JSON of
   its ``payload=`` field, exactly as Bolt would have read them.

A malformed signed request therefore gets a 200 or a 4xx from here or from Bolt, never a 5xx.

Whichever way a request reaches Bolt (here, or from Socket Mode), :class:`EdgeApp` keeps it in the
inbox (:mod:`bot.inbox`) before Bolt acks it; a duplicate (same key) is acked and changes nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from aiohttp import web
from slack_bolt import BoltResponse
from slack_bolt.adapter.aiohttp import to_aiohttp_response
from slack_bolt.async_app import AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_sdk.signature import SignatureVerifier

from agent import inbox
from agent.runtime.home import Acks
from bot import messages
from bot.envelope import BadRequest, check_envelope, is_ssl_check, read_body_text
from bot.inbox import SlackInbox, kind_of

log = logging.getLogger("tandem.bot")

TIMESTAMP, SIGNATURE = "x-slack-request-timestamp", "x-slack-signature"
JSON_TEXT = "tandem_json_text"
"""The request's context key for the JSON text its body was read from (kept in the inbox as it came)."""
OFF_LOOP = 64 * 1024
"""Bodies larger than this are read in a worker thread (a 1 MiB form takes ~150 ms to decode)."""


class Edge:
    """``handle`` is the aiohttp handler for ``/slack/events``; ``app`` answers what passes."""

    def __init__(self, app: AsyncApp, signing_secret: str, acks: Acks | None = None) -> None:
        self.app = app
        self.verifier = SignatureVerifier(signing_secret)
        self.acks = acks or Acks()

    async def handle(self, request: web.Request) -> web.StreamResponse:
        """Answer one request; while it is open, work that can wait yields to it (:class:`Acks`)."""
        self.acks.opened()
        try:
            return await self._handle(request)
        finally:
            self.acks.closed()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
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
        body, text = read_body_text(raw, headers.get("content-type"))
        kind = check_envelope(body)
        for_bolt: dict[str, str | Sequence[str]] = {
            name: value for name, value in headers.items() if name.startswith("x-slack-retry-")
        }
        try:
            # Bolt logs through the context while it reads (e.g. a modal with several response_urls).
            # "socket_mode": a body handed over as a dict, whose signature was checked here.
            context = {"logger": self.app.logger, JSON_TEXT: text}
            return AsyncBoltRequest(body=body, query=query, headers=for_bolt, context=context, mode="socket_mode")
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

    Socket Mode hands Bolt parsed bodies and needs no edge (its requests are kept in the inbox too).
    Bolt's own ``start()`` server would bypass it (Bolt still checks signatures there); Tandem serves
    :meth:`web_app` only.
    """

    def __init__(
        self, *, signing_secret: str, acks: Acks | None = None, inbox: SlackInbox | None = None, **kwargs: Any
    ) -> None:
        super().__init__(signing_secret=signing_secret, **kwargs)
        self.edge = Edge(self, signing_secret, acks)
        self.inbox = inbox

    async def async_dispatch(self, req: AsyncBoltRequest) -> BoltResponse:
        """Keep the request in the inbox, then let Bolt ack and handle it; a duplicate is acked and goes no
        further. A replay (already inside its row's context) is not kept again."""
        if self.inbox is None or inbox.current() is not None:
            return await super().async_dispatch(req)
        kind = kind_of(req.body)
        kept = await self.inbox.keep(req.body, kind, req.context.get(JSON_TEXT))
        if kept is False:
            return BoltResponse(status=200, body=messages.ALREADY_RECEIVED if kind == "slash_command" else "")
        if kept is True:
            return await super().async_dispatch(req)
        return await inbox.applying(kept, super().async_dispatch(req))  # the listener's work is the row's

    def _register_listener(self, *args: Any, **kwargs: Any) -> Any:
        """Each listener holds the inbox row of the request it runs for (:mod:`agent.inbox`) until it returns."""
        registered = super()._register_listener(*args, **kwargs)
        listener = self._async_listeners[-1]  # its arguments were read from the function itself
        listener.ack_function = holding(listener.ack_function)
        return registered

    def web_app(self, path: str = "/slack/events", port: int = 3000) -> web.Application:
        application = web.Application()
        application.router.add_post(path, self.edge.handle)
        return application


def holding(function: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """``function`` holding the current inbox row (if any) while it runs; failing leaves the row pending."""

    async def listener(**kwargs: Any) -> Any:
        receipt = inbox.current()
        if receipt is None:
            return await function(**kwargs)
        receipt.hold()
        failed = True
        try:
            result = await function(**kwargs)
            failed = False
            return result
        finally:
            receipt.release(failed=failed)

    # Bolt logs a listener by its name (its arguments were read from ``function`` already).
    listener.__name__ = listener.__qualname__ = getattr(function, "__name__", "listener")
    return listener
