"""May this step run: the gate, the anchors, what is safe to repeat after a crash, and the risk thresholds.

These are the answers of :class:`agent.policy.SafetyPolicy` (which is a :class:`GateRules`) that come from
the run alone: its stored policy snapshot (``state.policy``, so a run keeps the rules it started under),
its plan and its reviews. They read no configuration and do no I/O, so the pure machine asks them as it
goes. Ask them through :class:`~agent.policy.SafetyPolicy`; nothing else compares a risk with a threshold.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from agent.models import (
    AddRule,
    Anchor,
    CloseReview,
    Effect,
    Reschedule,
    Review,
    Risk,
    RunState,
    RunStep,
    Step,
    Summarize,
)

GATES: frozenset[Anchor] = frozenset({"before_risky_step", "recovery", "takeover_step"})
"""Reviews whose approval lets a gated step run."""
TEXT_APPROVES_UP_TO = Risk.WRITE
"""Free text ("yes", "可以，执行吧") approves at most this much; above it, the gate's own button (or --approve)."""
REPEATS_UP_TO = Risk.READ
"""A step of at most this risk is safe to do twice: it re-runs after a crash without asking anyone."""
ALWAYS_ASKS_FROM = Risk.DEPLOY
"""A step of this risk or more always asks: no standing rule covers it."""


class GateRules:
    """What may run, answered from the run's own policy snapshot (see the module's docstring)."""

    # --- thresholds --------------------------------------------------------------------

    def risky(self, state: RunState, risk: Risk) -> bool:
        """True when a step of ``risk`` needs a person's approval in this run (its confirm threshold)."""
        return risk >= state.policy.confirm_threshold

    @staticmethod
    def safe_to_repeat(risk: Risk) -> bool:
        """True when a step of ``risk`` may run again with nobody asked (it may have run already)."""
        return risk <= REPEATS_UP_TO

    @staticmethod
    def always_asks(risk: Risk) -> bool:
        """True when a step of ``risk`` always asks: never always-allowed, by chat or by the policy file."""
        return risk >= ALWAYS_ASKS_FROM

    @staticmethod
    def text_approves(risk: Risk) -> bool:
        """True when free text may approve letting a step of ``risk`` run."""
        return risk <= TEXT_APPROVES_UP_TO

    # --- the gate ------------------------------------------------------------------------

    def gated(self, state: RunState, step: Step) -> bool:
        """True when ``step`` needs a person's approval of its exact params before it runs."""
        return self.risky(state, step.risk)

    def may_run(self, state: RunState, step: Step) -> bool:
        """True when ``step`` may run now: it is not gated, or its exact current params were approved (by
        as many people as its gate needed, or by a standing rule that covers it)."""
        return not self.gated(state, step) or step.approved_digest == step.digest

    def is_gate(self, review: Review) -> bool:
        """True when approving ``review`` lets a step run that a person must approve."""
        return review.anchor in GATES

    def plan_approves_gates(self, state: RunState) -> bool:
        """True when approving the plan may also approve the gates of the risky steps it shows exactly
        (the run's ``merge_gate``; which of them it does approve is :func:`agent.merge.merged`)."""
        return state.policy.merge_gate

    @staticmethod
    def still_needed(review: Review) -> int:
        """How many more approvals ``review`` needs before one decides it (its quorum, less those counted)."""
        return max(review.quorum - len(review.approvals), 1)

    # --- anchors -------------------------------------------------------------------------

    def anchors(self, state: RunState, steps: Sequence[Step]) -> frozenset[Anchor]:
        """The optional reviews a plan of ``steps`` stops at (a gated step's own gate is not optional).
        A plan with a risky step stops at every anchor the run's policy names; one that only reads
        stops nowhere (``read_only = "done"``), or at its result, and at its plan too when it is long."""
        policy = state.policy
        if not policy.dynamic_anchors or any(self.risky(state, s.risk) for s in steps):
            return policy.anchors
        if policy.read_only == "review":
            return policy.anchors & ({"before_result"} if len(steps) <= 2 else {"after_plan", "before_result"})
        return frozenset()

    def stops_at(self, state: RunState, anchor: Anchor) -> bool:
        """True when the run's plan stops at ``anchor`` (set by :meth:`anchors` when the plan was made)."""
        return anchor in state.anchors

    def stops_after(self, state: RunState, step: Step) -> bool:
        """True when the outcome of ``step``, just done, stops the run before the rest of its plan goes
        on: a risky step, where the plan stops at outcomes, and another risky step follows it (or, with
        ``after_risky_step = "any_follows"``, any step does)."""
        if not self.risky(state, step.risk) or not self.stops_at(state, "after_risky_step"):
            return False
        later = [x for x in state.plan if x.number > step.number]
        if state.policy.after_risky_step == "any_follows":
            return bool(later)
        return any(self.risky(state, x.risk) for x in later)

    # --- after a crash ---------------------------------------------------------------------

    def rerun_needs_person(self, step: Step, *, idempotent: bool = False) -> bool:
        """A step cut off mid-way may have taken effect: anything not safe to repeat asks before it runs again,
        unless its tool says a second call changes nothing (``idempotent``: a trusted MCP server's word)."""
        return not idempotent and not self.safe_to_repeat(step.risk)

    def replayable(
        self,
        state: RunState,
        effects: Sequence[Effect],
        tool_risk: Callable[[str], Risk | None],
        *,
        local_model: bool = False,
    ) -> bool:
        """True when the work ``effects`` ask for may start before their transition is on disk: a crash
        would do it again with nobody asked, so it must be safe to repeat (a step's risk and its tool's,
        ``tool_risk``, None for a tool unknown here), and no effect may tell anyone anything or wait on a
        person. A model call is not: it takes seconds and is paid for, and what a person was told before
        it (the card's progress) must not wait for it; except writing the result with a ``local_model``
        (one that answers in this process, in well under a millisecond, at no cost), which is written from
        what ran and changes nothing: done again after a crash, it writes the same."""
        work = False
        for e in effects:
            match e:
                case RunStep():
                    step = state.step(e.number)
                    risk = tool_risk(step.tool)
                    if risk is None or not self.safe_to_repeat(max(step.risk, risk)):
                        return False
                    work = True
                case Summarize() if local_model:
                    work = True
                case CloseReview() | Reschedule() | AddRule():
                    pass
                case _:
                    return False
        return work
