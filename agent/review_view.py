"""One channel-neutral view of a pending review: what it asks, about what, who it waits on, what one may do.

Every channel renders this view (each chat platform's cards, the terminal);
none of them works out on its own which choices a review offers or who may decide:
the policy does, here, once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from agent.evidence import StepEvidence, review_evidence
from agent.merge import plan_gates
from agent.messages import ANCHOR_TITLES, always_label, offer_text, plan_gate_lines, risky_outcome
from agent.models import AlwaysOffer, Anchor, Handoff, LessonUse, Review, RunState, Step, call_scope, scope_label
from agent.plan_gate import PlanGate
from agent.policy import SafetyPolicy

Choice = Literal[
    "approve",  # approve (labelled "Continue anyway" after a failure, "Re-run" at a recovery)
    "approve_always",  # approve, and let this tool run without asking where the run lives
    "request_changes",
    "cancel",
    "answer",  # a tool's or the planner's question
    "instruct",  # takeover: say the next step
    "finish",
    "hand_back",
]


@dataclass(frozen=True)
class ReviewView:
    run_id: str
    review_id: str
    anchor: Anchor
    title: str
    task: str
    note: str | None
    step: Step | None  # the step this review is about, if any
    steps: tuple[Step, ...]  # the plan (plan and result reviews) or what ran so far (takeover)
    output: str | None
    handoff: Handoff | None
    asker: str | None  # who asks a handoff question: "step 2", "the planner"
    warning: str | None  # e.g. a recovered step that may or may not have taken effect
    takeover_reason: str | None
    choices: tuple[Choice, ...]
    text_approves: bool  # whether a typed "yes" may approve this review (never an exec or deploy gate)
    waiting_on: tuple[str, ...]  # principal ids (users and groups) whose decision the review waits for
    approvals: tuple[str, ...] = ()
    quorum: int = 1
    retries: int = 0
    max_retries: int = 0
    deadline: float | None = None
    why_not_always: str | None = field(default=None)  # why "approve_always" is not offered, when it is not
    lessons: tuple[LessonUse, ...] = ()  # the lessons that shaped the plan (see lessons_shown), each forgettable
    offer: AlwaysOffer | None = None  # the gate earned "always allow" from its history (shown with the choice)
    gates: tuple[PlanGate, ...] = ()  # a plan's risky steps: which its approval approves too, which still ask
    outcomes: tuple[str, ...] = ()  # at the result: what each risky step that ran did (prose)
    plan_size: int = 0  # the number of the plan's last step: "step 2 of 3" at a gate, which shows only its step

    @property
    def gate_lines(self) -> list[str]:
        """What approving the plan does to its risky steps, as prose (with ``mention`` markers)."""
        return plan_gate_lines(self.gates)

    evidence: tuple[StepEvidence, ...] = ()  # what the steps since the last review returned (agent.evidence)

    @property
    def offer_text(self) -> str | None:
        """The offer's history as prose (with ``mention``/``moment`` markers each channel renders)."""
        return offer_text(self.offer) if self.offer is not None else None

    @property
    def always_scope(self) -> str:
        """What "always allow" on this step would cover beside its tool: ``payments`` (see ``call_scope``)."""
        return scope_label(call_scope(self.step.params)) if self.step is not None else ""

    @property
    def always_label(self) -> str:
        """The "always allow" choice: ``Always allow restart_service for payments here``."""
        return always_label(self.step.tool, self.always_scope) if self.step is not None else ""

    @property
    def approvals_needed(self) -> int:
        return max(self.quorum - len(self.approvals), 0)


RECOVERY_WARNING = "Tandem stopped while this step was running: it may or may not have taken effect."


def review_view(state: RunState, review: Review, safety: SafetyPolicy) -> ReviewView:
    """The view of ``review`` on ``state`` under ``safety``."""
    step = _step(state, review)
    steps: tuple[Step, ...] = ()
    if review.anchor in ("after_plan", "before_result"):
        steps = tuple(state.plan)
    elif review.anchor == "takeover":
        steps = tuple(s for s in state.history + state.plan if s.status in ("done", "failed"))
    why_not = safety.may_remember(state, review) if review.anchor == "before_risky_step" and step else None
    evidence = review_evidence(state, review)
    return ReviewView(
        run_id=state.id,
        review_id=review.id,
        anchor=review.anchor,
        title=ANCHOR_TITLES[review.anchor] if review.anchor in ANCHOR_TITLES else "A question for you",
        task=state.task,
        note=review.note,
        step=step,
        steps=steps,
        output=state.output if review.anchor == "before_result" else None,
        handoff=review.handoff if review.anchor == "handoff" else None,
        asker=(f"step {review.step}" if review.step is not None else "the planner")
        if review.anchor == "handoff"
        else None,
        warning=RECOVERY_WARNING if review.anchor == "recovery" else None,
        takeover_reason=state.takeover_reason if review.anchor == "takeover" else None,
        choices=_choices(review.anchor, why_not, has_step=step is not None),
        text_approves=safety.text_may_approve(state, review),
        waiting_on=safety.waiting_on(state, review),
        approvals=tuple(a.by for a in review.approvals),
        quorum=review.quorum,
        retries=state.retries,
        max_retries=state.policy.max_retries,
        deadline=review.deadline,
        why_not_always=why_not,
        lessons=lessons_shown(state, review),
        offer=review.offer if why_not is None and review.anchor == "before_risky_step" else None,
        gates=plan_gates(safety, state, review),
        outcomes=_outcomes(safety, state, {e.number for e in evidence}) if review.anchor == "before_result" else (),
        evidence=evidence,
        plan_size=state.plan[-1].number if state.plan else 0,
    )


def _outcomes(safety: SafetyPolicy, state: RunState, shown: set[int]) -> tuple[str, ...]:
    """What each risky step that ran did, where the evidence (``shown``, since the last review) does not show it."""
    return tuple(
        risky_outcome(s)
        for s in state.plan
        if s.status in ("done", "failed") and safety.risky(state, s.risk) and s.number not in shown
    )


def lessons_shown(state: RunState, review: Review) -> tuple[LessonUse, ...]:
    """The lessons that shaped the plan, on its review, or on the result when the plan had no review."""
    plan_reviewed = "after_plan" in state.anchors
    if review.anchor == "after_plan" or (review.anchor == "before_result" and not plan_reviewed):
        return tuple(state.lessons_applied)
    return ()


def _step(state: RunState, review: Review) -> Step | None:
    if review.step is None:
        return None
    try:
        return state.step(review.step)
    except KeyError:
        return None


def _choices(anchor: Anchor, why_not_always: str | None, *, has_step: bool) -> tuple[Choice, ...]:
    match anchor:
        case "handoff":
            return ("answer", "cancel")
        case "takeover":
            return ("instruct", "finish", "hand_back", "cancel")
        case "before_risky_step" if why_not_always is None and has_step:
            return ("approve", "approve_always", "request_changes", "cancel")
        case _:
            return ("approve", "request_changes", "cancel")
