"""The engine under the runtime: persist each transition, tell observers, then perform its effects."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
import uuid
import weakref
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import TypedDict

from agent import machine, usage
from agent.config import PolicyConfig
from agent.errors import ConcurrentUpdate
from agent.lessons import pick as lesson_pick
from agent.logs import bind, ctx
from agent.models import (
    AddLesson,
    AddRule,
    Answered,
    AskHuman,
    AuditEvent,
    CardRefresh,
    CloseReview,
    Effect,
    Event,
    GateDecision,
    LeaseClaim,
    Lesson,
    MatchRule,
    Outgoing,
    Policy,
    Reschedule,
    Review,
    Risk,
    Rule,
    RuleChecked,
    RuleSuspension,
    RunState,
    RunStep,
    StepFinished,
    SuspendRule,
    param_shape,
)
from agent.policy import SafetyPolicy, rule_scope
from agent.ports import Brain, Change, Observer, Store
from agent.runtime.audit import audit_lines
from agent.runtime.home import Acks, RuntimeLoop
from agent.runtime.outbox import outbound, outgoing_for
from agent.runtime.work import ToolContext, Worker
from agent.tools import ToolRegistry

log = logging.getLogger("tandem.runtime")

LEASE_TTL = 30.0
"""Seconds a process's claim on a run's work lasts without renewal (it renews every third of that)."""


def _new_id() -> str:
    return uuid.uuid4().hex[:12]


@dataclass
class Held:
    """Observers' news of transitions committed without waiting for the disk, given out with the run's
    next durable commit (or by :meth:`Engine._release`). Their messages are in the outbox already,
    held back there (see :meth:`agent.ports.Store.commit`), so a crash loses none of them.

    ``unwritten``: a step safe to repeat that finished, when the transition it led to starts another such
    step and writes nothing else (no review, no rule, no message but a card update, which every transition
    makes and the next one's replaces): the next commit writes its audit lines and its state along with its
    own (one commit fewer per step). A crash before that commit does the step
    again, as it does a step in progress. Before the next step starts, the run's stored version is looked at
    (a read, not a write): a run cancelled meanwhile stops there, as a commit would have found, and still
    gets the audit lines."""

    changes: list[Change] = field(default_factory=list)
    unwritten: list[AuditEvent] = field(default_factory=list)
    unwritten_changes: list[Change] = field(default_factory=list)


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
        lease_ttl: float = LEASE_TTL,
    ) -> None:
        self.store = store
        # The loop the runtime's work runs on when it has one of its own (a served bot): its entry
        # points, called from any loop, run there (see agent.runtime.home). None: the caller's loop.
        self.home: RuntimeLoop | None = None
        # Requests a channel's server is answering now (a served bot): each piece of work waits for
        # them first (see agent.runtime.home.Acks). None: nothing to yield to.
        self.acks: Acks | None = None
        # Who works on a run holds its lease, renewed while the work runs: another process (or a
        # resume) treats the work as interrupted only once the lease has run out.
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self.lease_ttl = lease_ttl
        self._held: dict[str, int] = {}  # runs this process works on now (their leases are renewed)
        self._renewer: asyncio.Task[None] | None = None
        self.brain = brain
        self.tools = tools
        self.config = config or PolicyConfig()
        self.safety = SafetyPolicy(self.config)
        self.policy = policy or self.config.run_policy()
        self.observers = list(observers or [])
        self.tool_context = tool_context or nullcontext
        self.clock = clock
        self.new_id = new_id
        self.lazy_commits = True
        """Let a transition that only leads to work safe to do again (see ``SafetyPolicy.replayable``) commit
        without waiting for the disk; the next durable commit makes it durable too. False: every commit waits."""
        self.worker = Worker(brain, tools, self.config, self.tool_context, clock, new_id, recall=self._recall)
        # One lock per run while someone uses it; unused ones are collected (a long-lived bot
        # sees many runs). Whoever holds or awaits a lock keeps it alive, so exclusion holds.
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    async def _drive(self, state: RunState, version: int, effects: list[Effect], held: Held | None = None) -> RunState:
        held = held if held is not None else Held()
        try:
            return await self._drive_held(state, version, effects, held)
        finally:
            if held.changes:
                await self._release(state, held)

    async def _drive_held(self, state: RunState, version: int, effects: list[Effect], held: Held) -> RunState:
        queue = list(effects)
        while queue:
            effect = queue.pop(0)
            if self.acks is not None:
                await self.acks.calm()
            if held.unwritten and await self.store.version(state.id) != version:
                return await self._moved_on(state, effect, held)  # a cancel stops it before the next step
            with bind(run=state.id), usage.counting() as used:
                event = await self._perform_leased(state, effect)
            if event is None:
                continue
            try:
                async with self._lock(state.id):
                    state, version, more = await self._apply(state, version, event, "tandem", used, held)
            except ConcurrentUpdate:
                return await self._moved_on(state, effect, held)
            queue.extend(more)
        if held.unwritten:  # no transition followed to take them along (none does today): written on their own
            async with self._lock(state.id):
                version = await self.store.commit(state, version, held.unwritten, lease=self._lease(state))
            held.changes += held.unwritten_changes
            held.unwritten, held.unwritten_changes = [], []
            await self._tell(held)
        return state

    async def _moved_on(self, state: RunState, effect: Effect, held: Held) -> RunState:
        """Someone (a cancel) moved the run on while we worked: keep the record, stop here."""
        if held.unwritten:  # what the steps that ran did, unwritten yet: still part of the record
            await self.store.append_events(state.id, held.unwritten)
            held.unwritten, held.unwritten_changes = [], []
        fresh, _ = await self.store.load(state.id)
        log.info(
            "run %s moved on while %s was in progress; now %s",
            state.id,
            effect.kind,
            fresh.status,
            extra=ctx(run=state.id),
        )
        return fresh

    async def _perform_leased(self, state: RunState, effect: Effect) -> Event | None:
        """Perform one piece of work while this process's lease on the run is kept renewed."""
        if state.inflight is None:
            return await self.worker.perform(state, effect)
        self._held[state.id] = self._held.get(state.id, 0) + 1
        if self._renewer is None or self._renewer.done():
            self._renewer = asyncio.get_running_loop().create_task(self._renew(), name="leases")
        try:
            return await self.worker.perform(state, effect)
        finally:
            left = self._held[state.id] - 1
            if left:
                self._held[state.id] = left
            else:
                del self._held[state.id]

    async def _renew(self) -> None:
        """Renew the leases of the work this process is doing, every third of their length, while there is any."""
        while self._held:
            await asyncio.sleep(self.lease_ttl / 3)
            for run_id in list(self._held):
                if not await self.store.renew_lease(run_id, self.owner, self.clock() + self.lease_ttl):
                    log.warning("lost the lease on run %s while working on it", run_id, extra=ctx(run=run_id))

    def _lease(self, state: RunState) -> LeaseClaim | None:
        return LeaseClaim(self.owner, self.clock() + self.lease_ttl) if state.inflight is not None else None

    async def _apply(
        self,
        state: RunState,
        version: int,
        event: Event,
        actor: str,
        used: usage.Tally | None = None,
        held: Held | None = None,
        *,
        told: list[Outgoing] | None = None,
    ) -> tuple[RunState, int, list[Effect]]:
        """One transition, persisted with everything it decided in one transaction.

        A rule look-up the machine asks for is a pure read: it is answered at once and its
        transition shares the commit, so an always-allow rule costs no extra write. ``used``
        is what the work that produced ``event`` asked of the model (audited with it).

        With ``held`` (the caller drives the run on), a transition whose only work is safe to do
        again (:meth:`agent.policy.SafetyPolicy.replayable`) commits without waiting for the disk: its messages and
        observers' news wait in ``held`` for the next durable commit, so nobody is told of it, and
        no step at or above write risk starts, before it is on disk.

        ``told``: the messages to write instead of those the transition causes (a run whose thread
        never existed is told about elsewhere).
        """
        before = state
        new, effects = machine.transition(state, event, self.safety)
        audit = audit_lines(event, actor, effects, before, new, used)
        earlier: list[Effect] = []
        while (lookup := next((e for e in effects if isinstance(e, MatchRule)), None)) is not None:
            earlier += [e for e in effects if e is not lookup]
            checked = await self._match_rule(new, lookup)
            looked_up = new
            new, effects = machine.transition(new, checked, self.safety)
            audit += audit_lines(checked, "tandem", effects, looked_up, new)
        effects = earlier + effects
        writes = _writes(before, effects, event.at)
        messages = outgoing_for(before, event, effects) if told is None else told
        lazy = (
            held is not None
            and self.lazy_commits
            and self.safety.replayable(new, effects, self._tool_risk, local_model=self._local_model())
        )
        outbox = outbound(new, messages) if messages or not lazy else None
        if lazy and told is None and self._repeatable_step(before, event, effects, writes, messages):
            assert held is not None
            held.unwritten += audit
            held.unwritten_changes.append(Change(new, effects, event, actor, None))
            return new, version, effects
        carried = held.unwritten if held is not None else []
        version = await self.store.commit(
            new, version, carried + audit, **writes, outbox=outbox, lease=self._lease(new), durable=not lazy
        )
        if carried:
            assert held is not None
            held.changes += held.unwritten_changes
            held.unwritten, held.unwritten_changes = [], []
        if log.isEnabledFor(logging.INFO):
            log.info(
                "run %s: %s -> %s (%s)",
                new.id,
                event.kind,
                new.phase,
                ", ".join(e.kind for e in effects) or "no effects",
                extra=ctx(run=new.id, review=new.pending.id if new.pending else None, event=event.kind),
            )
        change = Change(new, effects, event, actor, writes["answered"][0] if writes["answered"] else None)
        if lazy:
            assert held is not None
            held.changes.append(change)
            return new, version, effects
        if held is not None:
            await self._tell(held)
        await self._notify(change)
        return new, version, effects

    async def _tell(self, held: Held) -> None:
        """Observers' news held back until a durable commit, given out now."""
        earlier_news, held.changes = held.changes, []
        for past in earlier_news:
            await self._notify(past)

    def _repeatable_step(
        self, before: RunState, event: Event, effects: list[Effect], writes: _Writes, messages: list[Outgoing]
    ) -> bool:
        """True when ``event`` is a step safe to repeat that finished, and its transition starts another step
        and writes nothing else (a card update at most, which the next transition's own replaces): its
        commit can wait for the next one (see :attr:`Held.unwritten`)."""
        if not isinstance(event, StepFinished) or not any(isinstance(e, RunStep) for e in effects):
            return False
        if not all(isinstance(m, CardRefresh) for m in messages):
            return False
        if any(writes[key] for key in _WRITTEN):  # type: ignore[literal-required]
            return False
        step = before.step(event.number)
        risk = self._tool_risk(step.tool)
        return risk is not None and self.safety.safe_to_repeat(max(step.risk, risk))

    def _local_model(self) -> bool:
        """Whether the brain's model answers in this process, at once and at no cost (the offline model)."""
        return getattr(self.brain, "local", False) is True

    def _tool_risk(self, name: str) -> Risk | None:
        """The risk of tool ``name`` here, None when no tool of that name is registered."""
        return self.tools.get(name).risk if name in self.tools else None

    async def _release(self, state: RunState, held: Held) -> None:
        """Give out what lazy commits held back when no durable commit of ours followed: the messages
        in a durable write of their own (which takes the earlier commits to disk), then the news.
        (When the run moved on in another commit, that commit, durable and later, gave them out.)"""
        told, held.changes = held.changes, []
        await self.store.release_outgoing(state.id)
        for change in told:
            await self._notify(change)

    async def _recall(self, state: RunState) -> list[Lesson]:
        """The lessons a plan for this run is given (none when ``[lessons] enabled = false``)."""
        rule = self.config.lessons
        if not rule.enabled:
            return []
        found = await self.store.find_lessons(rule_scope(state) or "", state.task, limit=4 * rule.limit)
        return lesson_pick([x for x in found if x.run_id != state.id], state.task, self.clock(), rule)

    async def _match_rule(self, state: RunState, work: MatchRule) -> RuleChecked:
        scope = rule_scope(state)
        step = state.step(work.number)
        rules = [*self.safety.configured_rules(scope), *(await self.store.rules(scope) if scope is not None else [])]
        found = next((r for r in rules if r.covers(step.tool, step.params)), None)
        history = await self._gate_history(state, work.number) if found is None and scope is not None else []
        return RuleChecked(at=self.clock(), nonce=self.new_id(), number=work.number, rule=found, history=history)

    async def _gate_history(self, state: RunState, number: int) -> list[GateDecision]:
        """What the channel decided lately at gates of this call's shape (for the "always allow" offer)."""
        wanted = self.safety.config.rules.offer_after
        step = state.step(number)
        if wanted == 0 or state.origin.scope is None:
            return []
        shape = param_shape(step.tool, step.params)
        return await self.store.gate_history(state.origin.scope, shape, step.tool, wanted)

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
            except Exception:  # a channel failing must not lose the run (its messages are in the outbox)
                log.exception(
                    "observer %s failed on run %s",
                    type(observer).__name__,
                    change.state.id,
                    extra=ctx(run=change.state.id),
                )


class _Writes(TypedDict):
    opened: Review | None
    answered: Answered | None
    closed: str | None
    reschedule: bool
    rules: list[Rule]
    lessons: list[Lesson]
    suspended: list[RuleSuspension]


_WRITTEN = ("opened", "answered", "closed", "reschedule", "rules", "lessons", "suspended")


def _writes(before: RunState, effects: list[Effect], at: float) -> _Writes:
    """What the store writes beside the run's new state, from the machine's effects."""
    was = before.pending.id if before.pending is not None else None
    out = _Writes(opened=None, answered=None, closed=None, reschedule=False, rules=[], lessons=[], suspended=[])
    for e in effects:
        match e:
            case AskHuman() if e.review.id != was:
                out["opened"] = e.review
            case CloseReview() if e.by is not None:
                out["answered"] = Answered(e.review_id, e.by, at, e.answer or {})
            case CloseReview():
                out["closed"] = e.review_id
            case Reschedule():
                out["reschedule"] = True
            case AddRule():
                out["rules"].append(e.rule)
            case AddLesson():
                out["lessons"].append(e.lesson)
            case SuspendRule():
                out["suspended"].append(e.suspension)
            case _:
                pass
    return out
