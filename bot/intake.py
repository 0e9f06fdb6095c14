"""How listeners take a payload in: ack first, then read it into its model.

A payload that does not parse changes nothing: it gets a log line for operators and, when the
body names a channel and a user, an ephemeral telling that person. :func:`after_ack` (and
:data:`on_click`) and :func:`on_event` wrap a handler that takes the parsed model. Listeners whose
ack carries their answer (a slash command's help, a modal's ``response_action=errors``) read first
with :func:`read_before_ack`, which never raises, so a malformed body still gets its ack.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pydantic import BaseModel
from slack_bolt.async_app import AsyncAck
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot import messages
from bot.payloads import BlockActions, Unreadable, read
from bot.replies import ephemeral

log = logging.getLogger("tandem.bot")

M = TypeVar("M", bound=BaseModel)
Handler = Callable[[M, AsyncWebClient], Awaitable[None]]
AckListener = Callable[[AsyncAck, dict[str, Any], AsyncWebClient], Awaitable[None]]
EventListener = Callable[[dict[str, Any], AsyncWebClient], Awaitable[None]]


def after_ack(model: type[M], surface: str) -> Callable[[Handler[M]], AckListener]:
    """A Bolt listener that acks, reads the body as ``model``, then calls the handler with it."""

    def wrap(handler: Handler[M]) -> AckListener:
        async def listener(ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
            await ack()
            payload = read(model, body, surface)
            if isinstance(payload, Unreadable):
                await report(client, payload)
                return
            try:
                await handler(payload, client)
            except Exception as exc:
                # Logged here, not raised to Bolt: a listener failing within 10 ms of its ack makes Bolt
                # drop the ack (asyncio_runner resets it), and Slack then waits 3 s for an answer.
                log.error("%s listener failed after its ack: %s", handler.__name__, exc, exc_info=exc)

        return named(listener, handler)

    return wrap


def on_event(model: type[M], surface: str) -> Callable[[Handler[M]], EventListener]:
    """A Bolt event listener (Bolt acks events itself) that reads the event as ``model`` first."""

    def wrap(handler: Handler[M]) -> EventListener:
        async def listener(event: dict[str, Any], client: AsyncWebClient) -> None:
            payload = read(model, event, surface)
            if isinstance(payload, Unreadable):
                await report(client, payload, tell=False)
                return
            await handler(payload, client)

        return named(listener, handler)

    return wrap


on_click = after_ack(BlockActions, "button click")
"""The usual :func:`after_ack`: a click on a button or a select menu."""

L = TypeVar("L", AckListener, EventListener)


def named(listener: L, handler: Callable[..., object]) -> L:
    """Bolt logs a listener by its name; keep the handler's (not ``functools.wraps``: Bolt would then
    read the handler's parameters and inject the wrong arguments)."""
    listener.__name__ = listener.__qualname__ = getattr(handler, "__name__", "listener")
    return listener


async def read_before_ack(
    ack: AsyncAck, client: AsyncWebClient, model: type[M], data: object, surface: str, *, say_in_ack: bool = False
) -> M | None:
    """For listeners whose ack carries their answer: ``data`` as ``model``, or ``None`` once acked and reported.

    Reading never raises, so the ack still comes. ``say_in_ack`` puts the problem in the ack's text,
    which Slack shows whoever typed a slash command; otherwise the ack is plain (a modal just closes).
    """
    payload = read(model, data, surface)
    if not isinstance(payload, Unreadable):
        return payload
    if say_in_ack:
        await ack(text=messages.UNREADABLE.format(surface=payload.surface, problem=payload.problem))
    else:
        await ack()
    await report(client, payload, tell=not say_in_ack)
    return None


async def report(client: AsyncWebClient, unreadable: Unreadable, *, tell: bool = True) -> None:
    """A log line for operators; an ephemeral for the person when the body names a channel and a user."""
    where = f"from {unreadable.user or 'an unknown user'} in {unreadable.channel or 'an unknown channel'}"
    log.warning("ignored an unreadable %s %s (nothing changed): %s", unreadable.surface, where, unreadable.problem)
    if not (tell and unreadable.user and unreadable.channel):
        return
    text = messages.UNREADABLE.format(surface=unreadable.surface, problem=unreadable.problem)
    try:
        await ephemeral(client, unreadable.channel, unreadable.user, text)
    except SlackApiError as exc:
        log.info("could not tell %s about the unreadable %s: %s", unreadable.user, unreadable.surface, exc)
