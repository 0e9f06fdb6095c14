"""The Runtime: start, cancel and recover runs; decisions and the scheduler come from its bases."""

from __future__ import annotations

import logging

from agent import machine
from agent.errors import InvalidDecision, StaleDecision, TandemError
from agent.models import AuditEvent, CancelRequested, Recovered, RunState
from agent.ports import Change
from agent.runtime.decisions import Decisions
from agent.runtime.scheduler import Scheduling

log = logging.getLogger("tandem.runtime")


class Runtime(Decisions, Scheduling):
    async def start(self, task: str, requester: str, *, channel: dict[str, str] | None = None) -> RunState:
        """Create a run and drive it to its first pause."""
        task = task.strip()
        if not task:
            raise InvalidDecision("A run needs a task: say what Tandem should do.")
        at = self.clock()
        state, effects = machine.start(self.new_id(), task, requester, at, policy=self.policy, channel=channel or {})
        audit = [AuditEvent(at=at, actor=requester, kind="started", payload={"task": task})]
        version = await self.store.create(state, audit)
        await self._notify(Change(state, effects, None, requester))
        return await self._drive(state, version, effects)

    async def cancel(self, run_id: str, by: str, reason: str = "") -> RunState:
        """Stop a run at any point, also while it works."""
        async with self._lock(run_id):
            state, version = await self.store.load(run_id)
            if state.finished:
                raise StaleDecision(f"Run {run_id} is already {state.status}.")
            event = CancelRequested(at=self.clock(), nonce=self.new_id(), by=by, reason=reason)
            answered = None
            if state.pending is not None:
                answered = (state.pending.id, {"kind": "cancel", "reason": reason})
            state, _, _ = await self._apply(state, version, event, by, answered=answered)
        return state

    async def recover(self, run_id: str) -> RunState:
        """Resume a run whose process died while it was working."""
        async with self._lock(run_id):
            state, version = await self.store.load(run_id)
            if state.finished or state.inflight is None:
                return state
            event = Recovered(at=self.clock(), nonce=self.new_id())
            state, version, effects = await self._apply(state, version, event, "tandem")
        return await self._drive(state, version, effects)

    async def recover_all(self) -> list[RunState]:
        recovered = []
        for run_id in await self.store.runs_in_flight():
            try:
                recovered.append(await self.recover(run_id))
            except TandemError as exc:
                log.warning("could not recover run %s: %s", run_id, exc)
        return recovered
