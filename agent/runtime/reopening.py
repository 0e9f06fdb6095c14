"""People's side of a run that is done: a reply in its thread is read as at its result review, and a
correction reopens the run (the machine's ``Reopened``), where the policy lets it."""

from __future__ import annotations

from collections.abc import Sequence

from agent.errors import InvalidDecision, NotAllowed
from agent.models import Correct, Event, Reading, Reopened, RunState
from agent.runtime.decisions import Decisions
from agent.runtime.home import at_home


class Reopening(Decisions):
    @at_home
    async def read_follow_up(self, run_id: str, text: str) -> Reading:
        """How a reply in the thread of a finished run reads (as said at its result). Changes nothing
        but the audit trail, which records the model calls the reading took."""
        state, _ = await self.store.load(run_id)
        reading = await self._classify(state, text, "before_result", None)
        if reading.intent == "retry_step" and reading.target_step is None and state.plan:
            done = [s.number for s in state.plan if s.status in ("done", "failed")]
            reading = reading.model_copy(update={"target_step": done[-1] if done else state.plan[-1].number})
        return reading

    @at_home
    async def reopen(
        self,
        run_id: str,
        decision: Correct,
        by: str,
        *,
        groups: Sequence[str] = (),
        reading: Reading | None = None,
    ) -> RunState:
        """Reopen a done run to apply a correction, then continue. NotAllowed (nothing written) when ``by``
        may not correct it; InvalidDecision when the run may not reopen (see ``SafetyPolicy.reopen_refusal``)."""

        async def reopened(state: RunState) -> Event:
            at = self.clock()
            refusal = self.safety.may_reopen(state, by, groups)
            if refusal is not None:
                raise NotAllowed(refusal)
            why_not = self.safety.reopen_refusal(state, at)
            if why_not is not None:
                raise InvalidDecision(why_not)
            return Reopened(at=at, nonce=self.new_id(), by=by, decision=decision, reading=reading)

        return await self._commit_fresh(run_id, by, reopened, "reopening")
