"""The runtime: carries out the machine's effects and feeds results back.

Every transition is persisted before its effects are carried out, so a process
that dies anywhere resumes from the last transition (see ``recover``).

:class:`Runtime` is assembled from small parts, one concern each:

* :mod:`~agent.runtime.runtime`: the entry points that start, cancel and recover runs.
* :mod:`~agent.runtime.decisions`: people's decisions and free text (``decide``, ``read``, ``say``).
* :mod:`~agent.runtime.reopening`: a correction in a done run's thread reopens it (``read_follow_up``, ``reopen``).
* :mod:`~agent.runtime.scheduler`: reminders and deadlines that have come (``tick``).
* :mod:`~agent.runtime.engine`: the loop itself: apply an event, persist, notify, perform the effects; it also
  answers the machine's standing-rule look-ups and recalls lessons.
* :mod:`~agent.runtime.work`: performing work (planner, tools, reviser, summarizer, proposer).
* :mod:`~agent.runtime.stopping`: a tool call under the step timeout, stopped when time is up.
* :mod:`~agent.runtime.credit`: which of the lessons given to the planner shaped its plan.
* :mod:`~agent.runtime.outbox`: the messages a transition causes, written in its commit.
* :mod:`~agent.runtime.audit`: what the audit log keeps of events and effects.
* :mod:`~agent.runtime.home`: the runtime's own event loop, so runtime work never queues in front of an ack.

The reminder and deadline a new review gets come from the policy (:mod:`agent.policy`), and what a
passed one does is the machine's (:mod:`agent.machine.timeouts`); standing "always allow" rules come
from the policy file (:mod:`agent.config_rules`) and the store.
"""

from agent.runtime.runtime import Runtime
from agent.runtime.work import ToolContext

__all__ = ["Runtime", "ToolContext"]
