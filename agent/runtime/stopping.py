"""A tool call under the step timeout: wait for it, and stop it when time is up.

``asyncio.wait_for`` is not enough. A sync tool's thread ignores cancellation, and an
async tool that catches ``CancelledError`` keeps ``wait_for`` waiting past the timeout
for as long as it likes. Here time is up at the timeout, whatever the tool does; what
is left is to say honestly whether the call stopped:

* a call that can be stopped (an async tool, a child process) is cancelled; one that
  ignores the first cancellation is cancelled once more; if it has not finished after
  that it is ``abandoned`` (still running), otherwise ``cancelled`` (it stopped);
* a sync tool's thread cannot be stopped: its call is ``abandoned`` at once.

An abandoned call is left running and its result goes nowhere; :class:`LateCalls`
keeps it until it ends, so nobody starts a second copy of its step meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from agent.models.steps import TimeoutOutcome

__all__ = ["CANCEL_GRACE", "LateCalls", "LateKey", "OutOfTime", "within"]

log = logging.getLogger("tandem.runtime")

CANCEL_GRACE = 1.0  # seconds a cancelled call gets to finish, twice, before it counts as still running


class OutOfTime(Exception):  # noqa: N818 - a flow-control signal, not a failure
    """The call did not finish in time; ``outcome`` says whether it was stopped."""

    def __init__(self, outcome: TimeoutOutcome) -> None:
        super().__init__(outcome)
        self.outcome = outcome


async def within(
    call: asyncio.Future[Any],
    *,
    timeout: float,  # noqa: ASYNC109 - the step's budget, enforced here by hand
    stoppable: bool,
    grace: float = CANCEL_GRACE,
) -> Any:
    """The result of ``call`` if it finishes within ``timeout`` seconds; else raise :class:`OutOfTime`."""
    try:
        done, _ = await asyncio.wait({call}, timeout=timeout)
        if done:
            return call.result()
        for _ in range(2 if stoppable else 0):
            call.cancel()
            done, _ = await asyncio.wait({call}, timeout=grace)
            if done:
                if not call.cancelled():
                    call.exception()  # what it raised or returned while being stopped counts for nothing
                raise OutOfTime("cancelled")
    except asyncio.CancelledError:  # whoever waits for the step is cancelled: so is the call
        call.cancel()
        raise
    raise OutOfTime("abandoned")


LateKey = tuple[str, int, str]  # run id, step number, tool


class LateCalls:
    """Abandoned calls of this process, kept (so they are not collected) until they end."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self._calls: dict[LateKey, tuple[asyncio.Future[Any], float]] = {}

    def since(self, key: LateKey) -> float | None:
        """When the still-running call for ``key`` was given up on, or None if there is none."""
        kept = self._calls.get(key)
        return kept[1] if kept is not None else None

    def calls(self) -> list[asyncio.Future[Any]]:
        return [call for call, _ in self._calls.values()]

    def keep(self, key: LateKey, call: asyncio.Future[Any]) -> None:
        run_id, number, tool = key
        since = self.clock()
        self._calls[key] = (call, since)
        log.warning(
            "run %s step %d (%s) ran out of time and could not be stopped; it runs on and its result will be ignored",
            run_id,
            number,
            tool,
        )

        def over(done: asyncio.Future[Any]) -> None:
            if self._calls.get(key, (None, 0.0))[0] is done:
                del self._calls[key]
            ended = "failed" if done.cancelled() or done.exception() is not None else "finished"
            log.info("run %s step %d (%s) %s after its step gave up on it; ignored", run_id, number, tool, ended)

        call.add_done_callback(over)
