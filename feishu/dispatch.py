"""What both connection modes do with a payload once it is read: check whose it is, then answer it.

The webhook (:mod:`feishu.webhook`) first decrypts the body and checks its signature, age and
verification token; the long connection (:mod:`feishu.longconn`) is authenticated by the app's
secret when it connects. Both then go through :func:`foreign` and :func:`answer`, so events and
card callbacks are kept in the same inbox (:mod:`feishu.inbox`) and get the same authorization and
answers on either path.
"""

from __future__ import annotations

import json
import logging
from typing import Any, assert_never

from agent.inbox import Replay, applying
from agent.models.inbox import Inbound
from feishu import messages
from feishu.api import FeishuError
from feishu.clicks import on_click, toast
from feishu.deps import FeishuDeps
from feishu.events import on_message
from feishu.inbox import keep
from feishu.payloads import CardCallback, Header, MessageEvent, OtherEvent, inbound

log = logging.getLogger("tandem.feishu")

TENANT_WAIT = 0.8
"""Seconds a request waits for this app's tenant to be learned (once per process: a token and a tenant call).
A card's click must be answered within 3 s and may still wait :data:`feishu.clicks.ANSWER_WITHIN` for its work;
past this the person is told Feishu is not answering, and the call goes on for the next request."""


class TenantUnknown(Exception):
    """This app's tenant could not be learned, so no request can be checked against it.

    ``text`` says why, for the person waiting: Feishu refused the app (an admin must act), or
    Feishu is not answering (try again)."""

    def __init__(self, detail: str, *, app_refused: bool = False) -> None:
        super().__init__(detail)
        self.app_refused = app_refused

    @property
    def text(self) -> str:
        return messages.APP_REFUSED.format(error=str(self)[:200]) if self.app_refused else messages.FEISHU_NOT_ANSWERING


async def foreign(deps: FeishuDeps, header: Header) -> str | None:
    """Why a payload is not this app's and tenant's (to refuse it), or ``None`` when it is.

    Raises :class:`TenantUnknown` when Feishu cannot be asked which tenant is ours.
    """
    if header.app_id and header.app_id != deps.settings.app_id:
        return f"request for another app ({header.app_id[:40]})"
    try:
        tenant = await deps.tenant_key(within=TENANT_WAIT)
    except TimeoutError:
        log.error("Feishu did not say which tenant is this app's within %.1f s; the request was refused", TENANT_WAIT)
        raise TenantUnknown(f"no answer within {TENANT_WAIT:g} s") from None
    except Exception as exc:
        log.error("could not learn this app's tenant: %s", exc)
        raise TenantUnknown(str(exc), app_refused=isinstance(exc, FeishuError) and exc.app_refused) from exc
    if header.tenant_key != tenant:
        return f"request from another tenant ({header.tenant_key[:40]})"
    return None


async def answer(deps: FeishuDeps, model: MessageEvent | CardCallback | OtherEvent) -> dict[str, Any]:
    """The answer to an admitted payload: ``{}`` for events (their work runs after it), the
    updated card or a toast for a card callback (never nothing)."""
    match model:
        case MessageEvent() | CardCallback():
            kept = await keep(deps, model)  # before the answer: a crash after it replays the request
            if kept is None:
                return toast("info", messages.DUPLICATE) if isinstance(model, CardCallback) else {}
            return await applying(kept, handle(deps, model))
        case OtherEvent():
            log.info("ignored a %s event", model.header.event_type[:60])
            return {}
        case _:
            assert_never(model)


async def handle(deps: FeishuDeps, model: MessageEvent | CardCallback) -> dict[str, Any]:
    """Do what a kept request asks (the first time, or replayed by :mod:`feishu.inbox`)."""
    match model:
        case MessageEvent():
            on_message(deps, model)
            return {}
        case CardCallback():
            return await on_click(deps, model)
        case _:
            assert_never(model)


def replayer(deps: FeishuDeps) -> Replay:
    """Answer a kept request again (the answer goes nowhere: the outbox shows what it changed)."""

    async def replay(item: Inbound) -> None:
        model = inbound(json.loads(item.body))
        if isinstance(model, MessageEvent | CardCallback):
            await handle(deps, model)

    return replay
