"""The runtime: carries out the machine's effects and feeds results back.

Every transition is persisted before its effects are carried out, so a process
that dies anywhere resumes from the last transition (see ``recover``).

:class:`Runtime` is assembled from small parts, one concern each:

* :mod:`~agent.runtime.runtime`: the entry points that start, cancel and recover runs.
* :mod:`~agent.runtime.decisions`: people's decisions and free text (``decide``, ``read``, ``say``).
* :mod:`~agent.runtime.reopening`: a correction in a done run's thread reopens it (``read_follow_up``, ``reopen``).
* :mod:`~agent.runtime.scheduler`: reminders and deadlines that have come (``tick``).
* :mod:`~agent.runtime.engine`: the loop itself: apply an event, persist, notify, perform the effects.
* :mod:`~agent.runtime.work`: performing work (planner, tools, reviser, summarizer, proposer).
* :mod:`~agent.runtime.deadlines`: the reminder and deadline a new review gets from the policy.
* :mod:`~agent.runtime.rules`: standing "always allow" rules that answer a gate at once.
* :mod:`~agent.runtime.audit`: what the audit log keeps of events and effects.
"""

from agent.runtime.runtime import Runtime
from agent.runtime.work import ToolContext

__all__ = ["Runtime", "ToolContext"]
