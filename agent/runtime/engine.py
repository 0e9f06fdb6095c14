"""The engine under the runtime: persist each transition, tell observers, then perform its effects."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
import weakref
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

from agent import machine
from agent.config import PolicyConfig
from agent.errors import ConcurrentUpdate
from agent.models import Approve, AskHuman, AuditEvent, Decided, Effect, Event, Policy, Risk, RunState
from agent.ports import Brain, Change, Observer, Store
from agent.runtime.audit import _audit_payload, _effect_payload
from agent.runtime.deadlines import _schedule
from agent.runtime.rules import _standing_rule
from agent.runtime.work import ToolContext, Worker
from agent.tools import ToolRegistry

log = logging.getLogger("tandem.runtime")


def _new_id() -> str:
    return uuid.uuid4().hex[:12]


class Engine:
    """The runtime's dependencies and its loop; :class:`~agent.runtime.Runtime` adds the entry points."""

    def __init__(
        self,
        store: Store,
        brain: Brain,
        tools: ToolRegistry,
        *,
        policy: Policy | None = None,
        config: PolicyConfig | None = None,
        observers: list[Observer] | None = None,
        tool_context: ToolContext | None = None,
        clock: Callable[[], float] = time.time,
        new_id: Callable[[], str] = _new_id,
    ) -> None:
        self.store = store
        self.brain = brain
        self.tools = tools
        self.config = config or PolicyConfig()
        self.policy = policy or Policy(confirm_threshold=Risk.parse(self.config.confirm_threshold))
        self.observers = list(observers or [])
        self.tool_context = tool_context or nullcontext
        self.clock = clock
        self.new_id = new_id
        self.worker = Worker(brain, tools, self.config, self.tool_context, clock, new_id)
        # One lock per run while someone uses it; unused ones are collected (a long-lived bot
        # sees many runs). Whoever holds or awaits a lock keeps it alive, so exclusion holds.
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    async def _drive(self, state: RunState, version: int, effects: list[Effect]) -> RunState:
        queue = list(effects)
        while queue:
            effect = queue.pop(0)
            event = await self.worker.perform(state, effect)
            if event is None:
                continue
            try:
                async with self._lock(state.id):
                    state, version, more = await self._apply(state, version, event, "tandem")
            except ConcurrentUpdate:
                # Someone (a cancel) moved the run on while we worked: keep the record, stop here.
                fresh, _ = await self.store.load(state.id)
                log.info("run %s moved on while %s was in progress; now %s", state.id, effect.kind, fresh.status)
                return fresh
            queue.extend(more)
        return state

    async def _apply(
        self,
        state: RunState,
        version: int,
        event: Event,
        actor: str,
        *,
        answered: tuple[str, dict[str, Any]] | None = None,
    ) -> tuple[RunState, int, list[Effect]]:
        new, effects = machine.transition(state, event)
        opened = next((e.review for e in effects if isinstance(e, AskHuman)), None)
        if opened is not None and opened.id == (state.pending.id if state.pending else None):
            opened = None  # the same review asked again (reassigned): not a new one
        if opened is not None:
            _schedule(self.config, opened)
        audit = [AuditEvent(at=event.at, actor=actor, kind=event.kind, payload=_audit_payload(event))]
        audit += [
            AuditEvent(at=event.at, actor="tandem", kind=e.kind, payload=_effect_payload(e))
            for e in effects
            if e.kind in ("ask_human", "finished", "notify", "remind")
        ]
        answer = (answered[0], actor, event.at, answered[1]) if answered else None
        before = state.pending
        after = new.pending
        closed = None
        if before is not None and (after is None or after.id != before.id) and before.id != (answered or ("",))[0]:
            closed = before.id  # moot now (e.g. the run was cancelled while it waited)
        reschedule = (
            before is not None
            and after is not None
            and after.id == before.id
            and (after.deadline, after.remind_at) != (before.deadline, before.remind_at)
        )
        version = await self.store.commit(
            new, version, audit, opened=opened, answered=answer, closed=closed, reschedule=reschedule
        )
        rule = None
        if opened is not None and opened.anchor == "before_risky_step":
            rule = await _standing_rule(self.store, new, opened)
        if rule is not None and opened is not None:
            # An "always allow" rule answers the gate at once: nobody is asked, the approval is logged.
            auto = Decided(
                at=event.at, nonce=self.new_id(), review_id=opened.id, decision=Approve(), by=f"rule:{rule.id}"
            )
            return await self._apply(new, version, auto, auto.by, answered=(opened.id, {"kind": "approve"}))
        await self._notify(Change(new, effects, event, actor, answered[0] if answered else None))
        return new, version, effects

    def _lock(self, run_id: str) -> asyncio.Lock:
        lock = self._locks.get(run_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[run_id] = lock
        return lock

    async def _notify(self, change: Change) -> None:
        for observer in self.observers:
            try:
                await observer.on_change(change)
            except Exception:  # a channel failing must not lose the run
                log.exception("observer %r failed on run %s", observer, change.state.id)
