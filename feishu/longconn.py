"""The long connection (Feishu's Socket Mode): lark-oapi's WebSocket client, in a thread of its own.

lark-oapi's ``ws.Client`` keeps a module-level event loop, taken at import, and drives it with
``run_until_complete``; inside Tandem's asyncio app that loop would be the running one and the
client would fail with "This event loop is already running". Its endpoint discovery is a
blocking ``requests`` call. So the client runs in its own thread, on a loop made there and set
as the SDK's loop before the client is built, and nothing of it runs on the bot's loop.

Each payload it receives is handed to the bot's loop and the thread waits for the answer:
events are claimed by ``event_id`` and acknowledged at once (their work runs after), card
callbacks get the updated card or a toast within Feishu's 3 s, exactly as over the webhook
(:mod:`feishu.dispatch`). The connection is authenticated by the app id and secret, so there
is no signature to check; the app and tenant of each payload still are.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import AsyncIterator
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import asynccontextmanager, suppress
from typing import Any

from agent.errors import TandemError
from agent.logs import ctx
from feishu import messages
from feishu.clicks import toast
from feishu.deps import FeishuDeps
from feishu.dispatch import TenantUnknown, answer, foreign
from feishu.payloads import CardCallback, Unreadable, UrlVerification, inbound

log = logging.getLogger("tandem.feishu")

CARD_WAIT = 2.8
"""Seconds the connection's thread waits for a card callback's answer (Feishu allows 3; the
click itself answers within ``clicks.ANSWER_WITHIN``)."""
EVENT_WAIT = 10.0
"""Seconds it waits for an event to be claimed; past that the event is not acknowledged, and
Feishu pushes it again (the claim makes the second push a no-op if the first got through)."""


class LongConnectionFailed(TandemError):
    """The long connection could not be opened (wrong app id or secret, or Feishu refused it)."""


async def received(deps: FeishuDeps, payload: object) -> dict[str, Any]:
    """The answer to one payload from the long connection (the bot's loop runs this)."""
    try:
        model = inbound(payload)
    except Unreadable as exc:
        log.warning("ignored an unreadable payload from the long connection: %s", exc)
        return toast("error", messages.NOT_A_TANDEM_BUTTON)
    if isinstance(model, UrlVerification):  # a webhook's check: nothing to echo on a connection
        return {}
    is_card = isinstance(model, CardCallback)
    try:
        why = await foreign(deps, model.header)
    except TenantUnknown as exc:
        if is_card:
            return toast("error", exc.text)
        raise  # the event is not acknowledged: Feishu pushes it again
    if why is not None:
        log.warning("refused a payload from the long connection: %s; nothing changed", why)
        return toast("error", messages.REFUSED) if is_card else {}
    return await answer(deps, model)


class LongConnection:
    """lark-oapi's WebSocket client in its own thread, handing what it receives to ``loop``.

    lark-oapi keeps one loop per process, so one long connection runs in a process at a time.
    """

    def __init__(self, deps: FeishuDeps, loop: asyncio.AbstractEventLoop) -> None:
        self.deps = deps
        self.loop = loop
        self.failure: BaseException | None = None
        self._own: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._ended: asyncio.Future[None] = loop.create_future()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="feishu-long-connection", daemon=True)
        self._thread.start()

    async def ended(self) -> None:
        """Wait until the connection's thread ends; :class:`LongConnectionFailed` if it failed."""
        await asyncio.shield(self._ended)
        if self.failure is not None:
            raise LongConnectionFailed(f"the Feishu long connection failed: {self.failure}")

    def stop(self, within: float = 10.0) -> None:
        """Stop the client's loop and wait (at most ``within`` seconds) for its thread to end."""
        self._stopping.set()
        own = self._own
        if own is not None and not own.is_closed():
            own.call_soon_threadsafe(own.stop)
        if self._thread is not None:
            self._thread.join(within)

    # --- the connection's thread ---------------------------------------------------------------

    def _run(self) -> None:
        own = asyncio.new_event_loop()
        asyncio.set_event_loop(own)  # the SDK's import and its client's cache take the current loop
        self._own = own
        client: Any = None
        try:
            import lark_oapi as lark
            import lark_oapi.ws.client as sdk_ws

            sdk_ws.loop = own  # whichever loop the SDK took at import, this thread's is the one it must drive
            sdk_log = logging.getLogger("Lark")  # the SDK prints to stdout itself; Tandem's logging has its lines
            sdk_log.handlers.clear()
            sdk_log.propagate = True
            handler = (
                lark.EventDispatcherHandler.builder("", "")
                .register_p2_im_message_receive_v1(self._event)
                .register_p2_card_action_trigger(self._card)
                .build()
            )
            settings = self.deps.settings
            client = lark.ws.Client(
                settings.app_id or "",
                settings.secret("app_secret"),
                event_handler=handler,
                domain=settings.api_url,
                log_level=lark.LogLevel.WARNING,  # its INFO lines carry the connection URL, ticket included
            )
            log.info("opening the Feishu long connection", extra=ctx(api=settings.api_url))
            if not self._stopping.is_set():
                client.start()  # returns only when stopped or failed
        except RuntimeError as exc:
            if not self._stopping.is_set():
                self.failure = exc
        except Exception as exc:
            self.failure = exc
            log.error("the Feishu long connection failed: %s", exc)
        finally:
            self._close(own, client)
            with suppress(RuntimeError):  # the bot's loop may be gone already (a stop that timed out)
                self.loop.call_soon_threadsafe(_settle, self._ended)

    def _close(self, own: asyncio.AbstractEventLoop, client: Any) -> None:
        tasks = asyncio.all_tasks(own)
        for task in tasks:
            task.cancel()
        own.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
        if client is not None:
            # The SDK has no public way to stop; its own disconnect closes the socket cleanly.
            own.run_until_complete(client._disconnect())
        own.run_until_complete(own.shutdown_asyncgens())
        own.close()

    def _hand_over(self, data: Any, wait: float) -> dict[str, Any]:
        import lark_oapi as lark

        payload = json.loads(lark.JSON.marshal(data))
        future = asyncio.run_coroutine_threadsafe(received(self.deps, payload), self.loop)
        try:
            return future.result(wait)
        except FutureTimeout:
            # The work goes on on the bot's loop; only the wait ends here.
            raise TimeoutError(f"no answer within {wait} s") from None

    def _event(self, data: Any) -> None:
        """An event: acknowledged once claimed (raising leaves it unacknowledged, so Feishu pushes it again)."""
        self._hand_over(data, EVENT_WAIT)

    def _card(self, data: Any) -> Any:
        """A card callback: the updated card or a toast, never nothing (an empty answer shows an error)."""
        from lark_oapi.event.callback.model.p2_card_action_trigger import P2CardActionTriggerResponse

        try:
            body = self._hand_over(data, CARD_WAIT)
        except TimeoutError:
            body = toast("info", messages.WORKING)
        except Exception as exc:
            log.exception("a card callback from the long connection failed")
            body = toast("error", messages.FAILED.format(error=exc))
        return P2CardActionTriggerResponse(body or toast("info", messages.WORKING))


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


@asynccontextmanager
async def long_connection(deps: FeishuDeps) -> AsyncIterator[LongConnection]:
    """The long connection open (in its thread) until the block ends; then closed and its thread joined."""
    connection = LongConnection(deps, asyncio.get_running_loop())
    connection.start()
    try:
        yield connection
    finally:
        await asyncio.to_thread(connection.stop)
