"""The Python client of the Handoff API: ask your people from your own code and await their answer.

::

    from api.client import Handoffs

    async with Handoffs("https://tandem.example.com", token) as handoffs:
        replicas = await handoffs.ask(
            "How many replicas for checkout?", channel="C0OPS", assignees=["U0ALICE"],
            input_type="number", idempotency_key="scale-checkout-981",
        )

:meth:`Handoffs.ask` creates the handoff and long-polls ``GET /api/v1/handoffs/{id}?wait=`` until it is decided.
Connection errors, 5xx answers and a server restarting are waited through (with backoff); a 4xx is raised at
once as :class:`HandoffRejected`. The same ``idempotency_key`` returns the same handoff: a caller that died and
runs again with its key gets the question it asked (and its answer, once given), never a second question. Without
a key, ``ask`` makes one for the call, so its own retries never ask twice.
"""

from __future__ import annotations

import asyncio
import uuid
from types import TracebackType
from typing import Any, Literal, Self

import aiohttp

__all__ = ["HandoffCancelled", "HandoffError", "HandoffRejected", "HandoffTimedOut", "Handoffs"]

WAIT = 25.0
"""Seconds one long-poll asks the server to hold (it holds at most 30)."""
BACKOFF = (0.2, 0.5, 1.0, 2.0, 5.0)
"""Seconds between tries after a connection error or a 5xx (the last repeats)."""


class HandoffError(Exception):
    """Base of what :class:`Handoffs` raises."""


class HandoffRejected(HandoffError):
    """The server refused the request (4xx): ``status``, and ``field`` it named (422) with ``detail``."""

    def __init__(self, status: int, detail: str, field: str | None = None) -> None:
        super().__init__(f"{status}: {detail}")
        self.status, self.detail, self.field = status, detail, field


class HandoffEnded(HandoffError):
    """The handoff ended without an answer; ``handoff`` is it as the API showed it."""

    def __init__(self, handoff: dict[str, Any], said: str) -> None:
        super().__init__(f"handoff {handoff.get('id')} {said}")
        self.handoff = handoff


class HandoffTimedOut(HandoffEnded):
    """Nobody answered before its deadline. ``default`` is what it was decided with (``on_timeout: use_default``;
    None otherwise)."""

    def __init__(self, handoff: dict[str, Any]) -> None:
        super().__init__(handoff, "timed out with nobody answering")
        self.default = handoff.get("answer")


class HandoffCancelled(HandoffEnded):
    """The handoff was cancelled (by the caller, or by a person who may)."""

    def __init__(self, handoff: dict[str, Any]) -> None:
        super().__init__(handoff, f"was cancelled (by {handoff.get('by') or 'someone'})")


class Handoffs:
    """Handoffs on one Tandem server (``base_url``, like ``https://tandem.example.com``), as one API token
    (scopes ``handoffs:write`` and ``handoffs:read``). Use as an async context manager, or call :meth:`close`."""

    def __init__(self, base_url: str, token: str, *, give_up_after: float | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.give_up_after = give_up_after
        """Seconds of failing to reach the server after which a call raises (None: keep trying)."""
        self._headers = {"Authorization": f"Bearer {token}"}
        self._session: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        await self.close()

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def ask(
        self,
        prompt: str,
        *,
        channel: str,
        assignees: list[str],
        input_type: Literal["choice", "text", "confirm", "number"] = "text",
        options: list[str] | None = None,
        context: dict[str, Any] | None = None,
        quorum: int = 1,
        timeout: float | None = None,  # noqa: ASYNC109 (the handoff's deadline in seconds, as the API names it)
        on_timeout: Literal["cancel", "reassign", "use_default", "escalate"] | None = None,
        default: Any = None,
        priority: Literal["low", "normal", "high", "urgent"] = "normal",
        callback_url: str | None = None,
        idempotency_key: str | None = None,
    ) -> Any:
        """Ask, and return the answer once given (a str, bool, int or float, as ``input_type`` says).
        Raises :class:`HandoffTimedOut` or :class:`HandoffCancelled` when it ends without one, and
        :class:`HandoffRejected` when the server refuses a field."""
        fields = {
            "prompt": prompt,
            "channel": channel,
            "assignees": assignees,
            "input_type": input_type,
            "options": options or [],
            "context": context or {},
            "quorum": quorum,
            "timeout": timeout,
            "on_timeout": on_timeout,
            "default": default,
            "priority": priority,
            "callback_url": callback_url,
            "idempotency_key": idempotency_key or uuid.uuid4().hex,
        }
        created = await self.create(**{k: v for k, v in fields.items() if v is not None})
        return await self.answer(created["id"])

    async def create(self, **fields: Any) -> dict[str, Any]:
        """``POST /api/v1/handoffs`` with ``fields`` (give an ``idempotency_key``: a retry then asks once)."""
        return await self._call("POST", "/api/v1/handoffs", json=fields)

    async def get(self, handoff_id: str, wait: float = 0.0) -> dict[str, Any]:
        """The handoff as the API shows it, once decided or ``wait`` seconds passed."""
        return await self._call("GET", f"/api/v1/handoffs/{handoff_id}", params={"wait": str(wait)})

    async def cancel(self, handoff_id: str) -> dict[str, Any]:
        return await self._call("POST", f"/api/v1/handoffs/{handoff_id}/cancel")

    async def answer(self, handoff_id: str) -> Any:
        """Long-poll until the handoff is decided: its answer, or the error saying how it ended."""
        while True:
            shown = await self.get(handoff_id, WAIT)
            match shown.get("status"):
                case "resolved":
                    return shown.get("answer")
                case "timed_out":
                    raise HandoffTimedOut(shown)
                case "cancelled":
                    raise HandoffCancelled(shown)

    async def _call(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        started, tries = loop.time(), 0
        while True:
            try:
                async with self._http().request(method, self.base_url + path, **kwargs) as answer:
                    if answer.status < 500:
                        body = await _json(answer)
                        if answer.status >= 400:
                            detail = str(body.get("detail") or body.get("title") or answer.reason)
                            raise HandoffRejected(answer.status, detail, body.get("field"))
                        return body
                    failed: BaseException = HandoffError(f"{method} {path} answered {answer.status}")
            except (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError, TimeoutError) as exc:
                failed = exc  # the server is away or restarting: try again
            if self.give_up_after is not None and loop.time() - started > self.give_up_after:
                raise HandoffError(f"{method} {path}: could not reach {self.base_url} ({failed!r})") from failed
            await asyncio.sleep(BACKOFF[min(tries, len(BACKOFF) - 1)])
            tries += 1

    def _http(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            timeout = aiohttp.ClientTimeout(total=WAIT + 30, connect=10)
            self._session = aiohttp.ClientSession(headers=self._headers, timeout=timeout)
        return self._session


async def _json(answer: aiohttp.ClientResponse) -> dict[str, Any]:
    try:
        body = await answer.json(content_type=None)
    except ValueError:
        return {"detail": (await answer.text())[:300]}
    return body if isinstance(body, dict) else {"detail": str(body)[:300]}
