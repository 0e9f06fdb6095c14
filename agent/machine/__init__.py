"""The loop as a pure function: ``transition(state, event) -> (state, effects)``.

No I/O, no clock, no randomness: times and fresh ids arrive on the event. The
runtime (:mod:`agent.runtime`) performs the effects and feeds results back.

Rules worth knowing (see also docs in README):

* The machine decides nothing about what may run: it asks the
  :class:`~agent.policy.SafetyPolicy` it is given. A step runs only when
  ``may_run`` says so (asked where every step starts): at or above the run's
  confirm threshold, only once its exact current params were approved
  (``approved_digest``).
* At most ``policy.max_retries`` corrections per run; the next correction
  hands control to a person (human takeover).
* Two consecutive failed ``retry_step`` corrections on one step escalate to a
  replan on their own.
* A risky step found ``running`` after a crash is never re-run silently.

Where each part lives:

* :mod:`~agent.machine.loop`: the entry points, ``start`` and ``transition``.
* :mod:`~agent.machine.helpers`: how a handler ends (work, ask, finish, takeover).
* :mod:`~agent.machine.execution`: planning and running steps.
* :mod:`~agent.machine.decisions`: approvals, cancels and corrections.
* :mod:`~agent.machine.takeover`: a person steering one step at a time.
* :mod:`~agent.machine.handoffs`: questions from tools and the planner.
* :mod:`~agent.machine.timeouts`: reviews past their reminder or deadline.
* :mod:`~agent.machine.recovery`: resuming after a crash.
"""

from agent.machine.helpers import Result
from agent.machine.loop import start, transition

__all__ = ["Result", "start", "transition"]
