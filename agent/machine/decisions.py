"""Decisions at a review: approvals (and quorums), cancels, and corrections (replan, retry, refine)."""

from __future__ import annotations

from typing import assert_never

from agent import merge
from agent.errors import InvalidDecision, NeedsClarification, UseTheButton
from agent.machine import lessons
from agent.machine.execution import advance, replan, run_step
from agent.machine.handoffs import on_answer
from agent.machine.helpers import Result, finish_run, start_work, take_over
from agent.machine.rules import remembered, suspensions
from agent.machine.takeover import on_takeover_decision, take_over_with
from agent.messages import approved_with_plan
from agent.models import (
    Answer,
    Approval,
    Approve,
    Cancel,
    Correct,
    Decided,
    Decision,
    Feedback,
    Finish,
    HandBack,
    Instruct,
    MakePlan,
    Notify,
    RefineOutput,
    Review,
    ReviseStep,
    RunState,
    mention,
)
from agent.policy import SafetyPolicy


def on_decision(s: RunState, event: Decided, policy: SafetyPolicy) -> Result:
    review = s.pending
    if review is None or review.id != event.review_id:
        raise InvalidDecision(f"Review {event.review_id} is not the pending review of run {s.id}.")
    decision = event.decision
    if isinstance(decision, Answer) and review.anchor != "handoff":
        raise InvalidDecision("This review is not a question; approve, request changes or cancel.")
    if event.reading is not None:
        _check_text(s, review, event, policy)
    if _counts_as_approval(review, decision):
        if any(a.by == event.by for a in review.approvals):
            raise InvalidDecision("You already approved this; it waits for other approvers.")
        if isinstance(decision, Approve) and decision.remember:
            refused = policy.may_remember(s, review)
            if refused is not None:
                raise InvalidDecision(f"{refused} Nothing changed; press Approve to approve just this once.")
        if policy.still_needed(review) > 1:  # not the last approval its quorum needs: counted, and it waits
            review.approvals.append(Approval(by=event.by, at=event.at, digest=review.digest))
            needed = policy.still_needed(review)
            text = f"Approved by {mention(event.by)}; {needed} more approval{'s' if needed != 1 else ''} needed."
            return s, [Notify(text=text)]
    suspended = suspensions(s, review, event)
    if isinstance(decision, Cancel):
        s.pending = None
        s.error = None
        state, effects = finish_run(s, "cancelled", by=event.by, why=decision.reason or "")
        return state, [*suspended, *effects]
    s.pending = None
    if review.anchor == "handoff":
        return on_answer(s, event, review, policy)
    if isinstance(decision, Answer):
        raise InvalidDecision("This review is not a question; approve, request changes or cancel.")
    if review.anchor in ("takeover", "takeover_step"):
        return on_takeover_decision(s, event, review, policy)
    match decision:
        case Approve():
            return _on_approve(s, event, review, policy)
        case Correct():
            state, effects = on_correction(s, event, review, decision, policy)
            return state, [*suspended, *effects]
        case Instruct() | Finish() | HandBack():
            raise InvalidDecision(f"'{decision.kind}' only applies during human takeover.")
        case Answer():  # refused above
            raise AssertionError("unreachable")
        case _:
            assert_never(decision)


def _counts_as_approval(review: Review, decision: Decision) -> bool:
    """Approvals count towards a quorum; at a tool's question only a Yes to a confirm question does."""
    if review.anchor != "handoff":
        return isinstance(decision, Approve)
    if review.handoff is None or review.handoff.input_type != "confirm":
        return False
    if isinstance(decision, Approve):
        return True
    try:
        return isinstance(decision, Answer) and review.handoff.validate_answer(decision.value) is True
    except ValueError:
        return False


def _check_text(s: RunState, review: Review, event: Decided, policy: SafetyPolicy) -> None:
    """Free text decides only what it may: never on a shaky reading, never an exec or deploy gate."""
    reading = event.reading
    assert reading is not None
    if not policy.text_sure(reading):
        raise NeedsClarification(
            "Tandem is not sure what that meant, so nothing changed; say it in other words or use the buttons."
        )
    if isinstance(event.decision, Approve) and not policy.text_may_approve(s, review):
        risk = policy.review_risk(s, review).label
        raise UseTheButton(
            f"A {risk} step is approved with its own Approve button, not with a reply; nothing changed.",
            review_id=review.id,
        )


def _on_approve(s: RunState, event: Decided, review: Review, policy: SafetyPolicy) -> Result:
    s.retry_step = None
    s.retry_failures = 0
    anchor = review.anchor
    if anchor == "before_result":
        return finish_run(s, "done")
    if anchor == "before_risky_step" or anchor == "recovery":
        step = s.step(review.step or 0)
        if anchor == "before_risky_step" and step.digest != review.digest:
            raise InvalidDecision(
                "The step's parameters changed since this approval was asked; approve the new request."
            )
        step.approved_digest = step.digest
        step.approved_by = event.by
        if anchor == "recovery":
            step.status = "pending"
        state, effects = run_step(s, step, policy)
        return state, [*remembered(s, event, review, step), *effects]
    if anchor == "after_plan":  # approving the plan may approve the risky steps it showed exactly, too
        merged = merge.merged(policy, s, review, event)
        for step in merged:
            step.approved_digest = step.digest
            step.approved_by = event.by
        state, effects = advance(s, event, policy)
        return state, ([Notify(text=approved_with_plan(list(merged), event.by))] if merged else []) + effects
    # after_risky_step, step_failed: carry on
    return advance(s, event, policy)


def on_correction(s: RunState, event: Decided, review: Review, c: Correct, policy: SafetyPolicy) -> Result:
    intent = c.intent
    target = c.target_step or review.step
    s.feedback.append(Feedback(by=event.by, at=event.at, intent=intent, text=c.feedback, step=target))
    if s.retries >= s.policy.max_retries:
        reason = (
            f"Tandem applied {s.retries} correction{'s' if s.retries != 1 else ''}; this one would be the "
            f"{_ordinal(s.retries + 1)}, so a person takes over from here, one approved step at a time."
        )
        return take_over_with(s, event, reason, c.feedback) if c.feedback.strip() else take_over(s, event, reason)
    s.retries += 1
    anchor = review.anchor
    if intent == "refine_output":
        if anchor == "before_result" and s.output is not None:
            s.return_anchor = None
            lessons.note(s, event, review, intent, c.feedback)
            return start_work(s, RefineOutput(feedback=c.feedback), "refining")
        if anchor == "after_plan":
            intent = "replan"
        elif anchor in ("before_risky_step", "recovery"):
            intent = "retry_step"
        else:  # a note about presentation only: keep it for the final result
            s.output_notes.append(c.feedback)
            lessons.note(s, event, review, intent, c.feedback)
            learned = lessons.said(s)
            state, effects = advance(s, event, policy)
            return state, learned + effects
    lessons.note(s, event, review, intent, c.feedback)
    was_retrying, was_failures = s.retry_step, s.retry_failures
    if intent == "retry_step":
        if target is None:
            done = [x.number for x in s.plan if x.status in ("done", "failed")]
            target = done[-1] if done else (s.plan[0].number if s.plan else None)
        if target is None or target not in {x.number for x in s.plan}:
            intent = "replan"
        else:
            if s.retry_step != target:
                s.retry_step, s.retry_failures = target, 0
            elif s.step(target).status != "failed":
                # The last retry ran but the person is still not satisfied. (A retry
                # whose re-run failed was already counted when it finished.)
                s.retry_failures += 1
            if s.retry_failures >= 2:
                return replan(s, event, f"Step {target} still is not right after two corrections; replanning.")
            s.return_anchor = anchor if anchor in ("after_plan", "after_risky_step") else None
            fix = ReviseStep(
                number=target,
                feedback=c.feedback,
                suggested_fix=c.suggested_fix,
                anchor=anchor,
                review_step=review.step,
                was_retrying=was_retrying,
                was_failures=was_failures,
            )
            return start_work(s, fix, "retrying")
    s.retry_step, s.retry_failures = None, 0
    asked = MakePlan(anchor=anchor, review_step=review.step, was_retrying=was_retrying, was_failures=was_failures)
    return replan(s, event, "", asked)


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"
