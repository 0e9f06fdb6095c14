"""The engine under the runtime: persist each transition, tell observers, then perform its effects."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
import weakref
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any, TypedDict

from agent import machine
from agent.config import PolicyConfig
from agent.errors import ConcurrentUpdate
from agent.models import (
    AddRule,
    AskHuman,
    AuditEvent,
    CloseReview,
    Effect,
    Event,
    MatchRule,
    Policy,
    Reschedule,
    Review,
    Risk,
    Rule,
    RuleChecked,
    RunState,
)
from agent.policy import SafetyPolicy, rule_scope
from agent.ports import Brain, Change, Observer, Store
from agent.runtime.audit import _audit_payload, _effect_payload
from agent.runtime.outbox import delivery_channel, outgoing_for
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
        self.safety = SafetyPolicy(self.config)
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
        self, state: RunState, version: int, event: Event, actor: str
    ) -> tuple[RunState, int, list[Effect]]:
        """One transition, persisted with everything it decided in one transaction.

        A rule look-up the machine asks for is a pure read: it is answered at once and its
        transition shares the commit, so an always-allow rule costs no extra write.
        """
        before = state
        new, effects = machine.transition(state, event, self.safety)
        audit = _audit(event, actor, effects)
        earlier: list[Effect] = []
        while (lookup := next((e for e in effects if isinstance(e, MatchRule)), None)) is not None:
            earlier += [e for e in effects if e is not lookup]
            checked = await self._match_rule(new, lookup)
            new, effects = machine.transition(new, checked, self.safety)
            audit += _audit(checked, "tandem", effects)
        effects = earlier + effects
        writes = _writes(before, effects, event.at)
        channel = delivery_channel(new)
        outbox = (channel, outgoing_for(before, event, effects)) if channel is not None else None
        version = await self.store.commit(new, version, audit, **writes, outbox=outbox)
        log.info(
            "run %s: %s -> %s (%s)", new.id, event.kind, new.phase, ", ".join(e.kind for e in effects) or "no effects"
        )
        await self._notify(Change(new, effects, event, actor, writes["answered"][0] if writes["answered"] else None))
        return new, version, effects

    async def _match_rule(self, state: RunState, work: MatchRule) -> RuleChecked:
        scope = rule_scope(state)
        tool = state.step(work.number).tool
        rules = await self.store.rules(scope) if scope is not None else []
        found = next((r for r in rules if r.tool == tool), None)
        return RuleChecked(at=self.clock(), nonce=self.new_id(), number=work.number, rule=found)

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


_AUDITED = ("ask_human", "finished", "notify", "remind", "close_review", "add_rule")


def _audit(event: Event, actor: str, effects: list[Effect]) -> list[AuditEvent]:
    lines = [AuditEvent(at=event.at, actor=actor, kind=event.kind, payload=_audit_payload(event))]
    lines += [
        AuditEvent(at=event.at, actor="tandem", kind=e.kind, payload=_effect_payload(e))
        for e in effects
        if e.kind in _AUDITED
    ]
    return lines


class _Writes(TypedDict):
    opened: Review | None
    answered: tuple[str, str, float, dict[str, Any]] | None
    closed: str | None
    reschedule: bool
    rules: list[Rule]


def _writes(before: RunState, effects: list[Effect], at: float) -> _Writes:
    """What the store writes beside the run's new state, from the machine's effects."""
    was = before.pending.id if before.pending is not None else None
    out = _Writes(opened=None, answered=None, closed=None, reschedule=False, rules=[])
    for e in effects:
        match e:
            case AskHuman() if e.review.id != was:
                out["opened"] = e.review
            case CloseReview() if e.by is not None:
                out["answered"] = (e.review_id, e.by, at, e.answer or {})
            case CloseReview():
                out["closed"] = e.review_id
            case Reschedule():
                out["reschedule"] = True
            case AddRule():
                out["rules"].append(e.rule)
            case _:
                pass
    return out
