"""The run card as channel-neutral data: what it says, before any channel draws it.

Every chat platform draws the same view: the run, who decided what, what it is doing now,
who it waits on, and what could not be delivered.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agent.decision_lines import DecisionLine, decision_lines
from agent.models import ASK_TOOL, Anchor, AuditEvent, Review, RunStarted, RunState
from agent.policy import SafetyPolicy
from agent.ports import Store

_WAITING: dict[Anchor, str] = {
    "handoff": "an answer to step {n}'s question",
    "after_plan": "plan review",
    "before_risky_step": "approval of step {n}",
    "after_risky_step": "check of step {n}'s outcome",
    "before_result": "result review",
    "step_failed": "decision on failed step {n}",
    "recovery": "decision on interrupted step {n}",
    "takeover": "instructions in the thread",
    "takeover_step": "approval of proposed step {n}",
}


def waiting_for(review: Review) -> str:
    """What a pending review waits on, e.g. ``approval of step 2``."""
    if review.anchor == "handoff" and review.step is None:
        return "an answer to the planner's question"
    return _WAITING[review.anchor].format(n=review.step if review.step is not None else "?")


def status_detail(state: RunState) -> str:
    """What the run is doing right now, in a few words."""
    if state.pending is not None and not state.finished:
        return waiting_for(state.pending)
    running = next((s.number for s in state.plan if s.status == "running"), None)
    match state.phase:
        case "planning":
            return "drafting a plan"
        case "replanning":
            return "drafting a new plan after feedback"
        case "retrying":
            return f"retrying step {state.retry_step}" if state.retry_step is not None else "retrying"
        case "summarizing":
            return "writing up the result"
        case "refining":
            return "reworking the result"
        case "executing" if running is not None:
            return f"running step {running} of {state.plan[-1].number}"
        case _:
            return ""


@dataclass(frozen=True)
class RunCardView:
    """What a run card shows, as the run is now."""

    state: RunState
    decisions: list[DecisionLine]
    doing: str  # what the run does now (:func:`status_detail`)
    waiting_on: tuple[str, ...]  # who the pending review waits for (principal ids)
    undelivered: int  # messages of the run that could not be delivered (its card's own first post aside)
    last_error: str = ""
    answerers: tuple[str, ...] = ()  # a run that only asks (a handoff): who may answer its question

    def undelivered_note(self, escape: Callable[[str], str]) -> str:
        """The warning the card carries while messages are undelivered ('' when none), ``escape`` applied to
        the platform's error."""
        if not self.undelivered:
            return ""
        n = self.undelivered
        return (
            f"{n} message{'s' if n != 1 else ''} of this run could not be delivered "
            f"({escape(self.last_error[:200] or 'unknown error')}); `tandem redeliver {self.state.id}` retries."
        )


async def run_card_view(store: Store, state: RunState, safety: SafetyPolicy) -> RunCardView:
    """The run card's view, read from the store as the run is now."""
    events = await store.events(state.id)
    lines = decision_lines(events)
    undelivered = [d for d in await store.undelivered(state.id) if not isinstance(d.message, RunStarted)]
    last = (undelivered[-1].error or "") if undelivered else ""
    return RunCardView(
        state, lines, status_detail(state), waiting_on(state, safety), len(undelivered), last, answerers(state, events)
    )


def is_handoff_run(state: RunState) -> bool:
    """Whether ``state`` is a run that only asks (asked through the API or MCP: see :mod:`agent.machine.asked`)."""
    return len(state.plan) == 1 and state.plan[0].tool == ASK_TOOL


def answerers(state: RunState, events: Sequence[AuditEvent]) -> tuple[str, ...]:
    """Who may answer a run that only asks: its question's assignees (escalation included), while it waits and
    after (from the audit trail); none for any other run."""
    if not is_handoff_run(state):
        return ()
    if state.pending is not None and state.pending.assignees:
        return tuple(state.pending.assignees)
    asked = [e.payload.get("assignees") for e in events if e.kind == "step_paused"]
    named = next((a for a in reversed(asked) if isinstance(a, list)), [])
    return tuple(str(a) for a in named)


def waiting_on(state: RunState, safety: SafetyPolicy) -> tuple[str, ...]:
    """Who the run's pending review waits for (principal ids; none when nothing waits)."""
    return safety.waiting_on(state, state.pending) if state.pending is not None and not state.finished else ()
