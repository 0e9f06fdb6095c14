"""Other software asks your people: a handoff asked with an API token becomes a run that only asks
(:mod:`agent.machine.asked`), and its status is read from that run.

The use cases here take a checked token (see :mod:`agent.tokens`) and return typed outcomes; an HTTP
door renders them. A token sees only the handoffs it asked: another token's is unknown to it.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, field_validator, model_validator

from agent.errors import RunExists, UnknownRun
from agent.machine.asked import AskTerms, OnTimeout
from agent.models import Handoff, InputType, Origin, Priority, RunState
from agent.models.platforms import place_hint, principal_of, run_origin
from agent.models.tokens import AskedRecord
from agent.outcomes import Applied, NotApplied, Refused
from agent.policy import TIMEOUT
from agent.ports import Store, TokensStore
from agent.runtime import Runtime
from agent.runtime.home import RuntimeLoop, at_home
from agent.usecases import UseCases
from agent.waking import Wakes

Status = Literal["pending", "resolved", "timed_out", "cancelled"]
MAX_WAIT = 30.0
"""The longest a ``wait`` holds a read open, in seconds."""
POLL = 0.2
"""How often a wait reads its run again, for an answer given through another process."""


class Caller(Protocol):
    """Who asks: an API token (:class:`~agent.models.tokens.ApiToken`) or another door's named principal.
    ``name`` keys its handoffs (each caller sees only its own, idempotency keys are per caller);
    ``principal`` is who it acts as in the audit trail."""

    @property
    def name(self) -> str: ...

    @property
    def principal(self) -> str: ...


@dataclass(frozen=True)
class McpCaller:
    """An MCP client of ``tandem mcp``, named by whoever starts it: audited as ``mcp:NAME``."""

    label: str

    @property
    def name(self) -> str:
        return self.principal

    @property
    def principal(self) -> str:
        return f"mcp:{self.label}"


class NotYet(ValueError):
    """A field asks for something this version does not do yet (the HTTP door answers 422 with it)."""


class Unserved(Exception):  # noqa: N818 - a refusal with its reason, named for what it says
    """The ``channel`` names a place this server does not reach as set up (e.g. mail with no SMTP server):
    nothing was asked (the HTTP door answers 422 with it)."""


class AskRequest(BaseModel, extra="forbid"):
    """What a caller asks: the question, how it is answered, where, by whom and by when."""

    prompt: str = Field(min_length=1, max_length=3000)
    input_type: InputType = "text"
    options: list[str] = Field(default_factory=list, max_length=25)
    context: dict[str, Any] = Field(default_factory=dict)
    channel: str = Field(
        min_length=1,
        description='Where it is asked: the id of a chat channel, "inbox" (posted to no chat: the assignees see it '
        'in their web inbox alone) or "email:ADDRESS".',
    )
    assignees: list[str] = Field(min_length=1, max_length=50)
    """Who may answer (people or groups): required, since a run asked by a token has no person as its requester."""
    quorum: int = Field(default=1, ge=1)
    timeout: float | None = Field(default=None, gt=0)
    on_timeout: OnTimeout | None = None
    default: Any = None
    priority: Priority = "normal"
    callback_url: str | None = None
    idempotency_key: str | None = Field(default=None, min_length=1, max_length=200)

    @field_validator("channel")
    @classmethod
    def _a_place(cls, value: str) -> str:
        if value.startswith("email:") and run_origin(value) is None:
            raise ValueError(f"{value!r} is not one mail address after 'email:' (like email:oncall@example.com)")
        if run_origin(value) is None:
            raise ValueError(f"{value!r} is not the id of a channel Tandem posts to ({place_hint()})")
        return value

    @field_validator("assignees")
    @classmethod
    def _people(cls, value: list[str]) -> list[str]:
        for entry in value:
            if principal_of(entry) is None:
                raise ValueError(f"{entry!r} is not a person or group id of a chat platform Tandem knows")
        return value

    @field_validator("callback_url")
    @classmethod
    def _web_address(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parsed = urlsplit(value)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError(f"{value!r} is not an http or https URL (like https://ci.example.com/tandem-hook)")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> AskRequest:
        if self.input_type == "choice" and not self.options:
            raise ValueError("options: a choice needs at least one option")
        if self.quorum > len(self.assignees):
            raise ValueError(f"quorum: {self.quorum} answers cannot come from {len(self.assignees)} assignees")
        if self.on_timeout == "use_default":
            if self.default is None:
                raise ValueError("default: on_timeout 'use_default' needs a default")
            try:
                self.handoff().validate_answer(self.default)
            except ValueError as exc:
                raise ValueError(f"default: not a valid answer ({exc})") from None
        if self.on_timeout is not None and self.timeout is None:
            raise ValueError("timeout: on_timeout needs a timeout (seconds)")
        return self

    def handoff(self, reason: str = "asked through the API") -> Handoff:
        return Handoff(
            prompt=self.prompt,
            input_type=self.input_type,
            options=self.options,
            context=self.context,
            reason=reason,
            priority=self.priority,
            default=self.default,
            callback_url=self.callback_url,
        )


class HandoffView(BaseModel):
    """A handoff as the API shows it."""

    id: str
    status: Status
    prompt: str
    answer: Any = None
    by: str | None = None
    at: float | None = None
    created_at: float


@dataclass(frozen=True)
class Created:
    handoff: HandoffView
    new: bool


@dataclass(frozen=True)
class NoSuchHandoff:
    id: str


def _served(origin: Origin) -> str | None:
    return None


class Asking:
    """The handoff use cases on one store and runtime (the same the chat channels use)."""

    def __init__(
        self,
        store: Store,
        runtime: Runtime,
        usecases: UseCases,
        *,
        unserved: Callable[[Origin], str | None] = _served,
        tokens: TokensStore | None = None,
    ) -> None:
        self.store = store
        # where a request's token is checked (None: ``store``): a connection of the serving loop's own, so the
        # check at the door does not queue behind the runtime's work
        self.tokens: TokensStore = tokens if tokens is not None else store
        self.runtime = runtime
        self.usecases = usecases
        self.unserved = unserved  # why a place cannot be asked at on this server (None: it can)
        self.poll = POLL
        self.wakes = Wakes()  # a wait ends as soon as its run changes in this process
        runtime.observers.append(self.wakes)

    @property
    def home(self) -> RuntimeLoop | None:
        """The runtime's own loop (None: the caller's): a create, read or cancel runs there whole, one hop instead
        of one per store call, each of which would queue behind the runtime's other work."""
        return self.runtime.home

    @at_home
    async def ask(self, token: Caller, request: AskRequest, *, reason: str = "asked through the API") -> Created:
        """Ask ``request`` as ``token`` (``reason``: the question's "why" line), or return the handoff this caller
        already asked with its idempotency key. The same key asked at once (here, or by another process or replica
        on the same database) is one handoff: the key's record and the run are each created only if absent.
        :class:`Unserved` when its channel cannot be reached here."""
        origin = run_origin(request.channel)
        if origin is not None and (why := self.unserved(origin)) is not None:
            raise Unserved(why)
        record = AskedRecord(
            id=uuid.uuid4().hex[:12],
            token=token.name,
            idempotency_key=request.idempotency_key,
            callback_url=request.callback_url,
            created_at=self.runtime.clock(),
        )
        kept = await self.store.keep_asked(record)
        return await self._asked(kept.id, request, token, reason)

    async def _asked(self, run_id: str, request: AskRequest, token: Caller, reason: str) -> Created:
        origin = run_origin(request.channel)
        assert origin is not None  # checked by the request
        try:
            state, _ = await self.store.load(run_id)
            return Created(await self._view(state), new=False)
        except UnknownRun:  # new (or kept by a process that stopped before its run was written)
            pass
        terms = AskTerms(
            assignees=request.assignees, quorum=request.quorum, timeout=request.timeout, on_timeout=request.on_timeout
        )
        try:
            state = await self.runtime.ask(run_id, token.principal, origin, request.handoff(reason), terms)
        except RunExists:  # another process (or replica) asked it at once, and wrote it first: that one is it
            state, _ = await self.store.load(run_id)
            return Created(await self._view(state), new=False)
        return Created(await self._view(state), new=True)

    @at_home
    async def read(self, token: Caller, handoff_id: str, wait: float = 0.0) -> HandoffView | NoSuchHandoff:
        """The handoff, once it is decided or ``wait`` seconds (at most :data:`MAX_WAIT`) passed."""
        kept = await self.store.asked(handoff_id)
        if kept is None or kept.token != token.name:
            return NoSuchHandoff(handoff_id)
        until = self.runtime.clock() + min(max(wait, 0.0), MAX_WAIT)
        with self.wakes.watching(handoff_id) as changed:
            while True:
                changed.clear()
                try:
                    state, _ = await self.store.load(handoff_id)
                except UnknownRun:  # kept by a process that stopped before its run was written, or pruned
                    return NoSuchHandoff(handoff_id)
                view = await self._view(state)
                left = until - self.runtime.clock()
                if view.status != "pending" or left <= 0:
                    return view
                with suppress(TimeoutError):  # answered here: woken at once; answered elsewhere: read again
                    async with asyncio.timeout(min(self.poll, left)):
                        await changed.wait()

    @at_home
    async def cancel(self, token: Caller, handoff_id: str) -> HandoffView | NoSuchHandoff | NotApplied | Refused:
        kept = await self.store.asked(handoff_id)
        if kept is None or kept.token != token.name:
            return NoSuchHandoff(handoff_id)
        outcome = await self.usecases.cancel(handoff_id, token.principal, "cancelled by the software that asked")
        if isinstance(outcome, Applied):
            return await self._view(outcome.state)
        if isinstance(outcome, Refused | NotApplied):
            return outcome
        state, _ = await self.store.load(handoff_id)  # it ended meanwhile: as it ended
        return await self._view(state)

    async def _view(self, state: RunState) -> HandoffView:
        return await handoff_view(self.store, state)


async def handoff_view(store: Store, state: RunState) -> HandoffView:
    """The handoff ``state`` asks, as the API shows it (and its webhook sends it)."""
    record = await store.get_review(state.id)
    answered = record is not None and record.answered_by is not None
    by = record.answered_by if record is not None else None
    at = record.answered_at if record is not None else None
    answer = state.plan[0].result if state.plan else None
    status: Status = "pending"
    timed_out = answered and by == TIMEOUT
    if state.phase == "done":
        status = "timed_out" if timed_out else "resolved"
    elif state.finished:
        status = "timed_out" if timed_out else "cancelled"
    if status == "pending":
        by, at = None, None
    return HandoffView(
        id=state.id, status=status, prompt=state.task, answer=answer, by=by, at=at, created_at=state.created_at
    )
