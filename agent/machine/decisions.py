"""Decisions at a review: approvals (and quorums), cancels, and corrections (replan, retry, refine)."""

from __future__ import annotations

from typing import assert_never

from agent.errors import InvalidDecision
from agent.machine.execution import _advance, _replan, _run
from agent.machine.handoffs import _on_answer
from agent.machine.helpers import Result, _finish, _takeover, _work
from agent.machine.takeover import _on_takeover_decision
from agent.models import (
    Answer,
    Approval,
    Approve,
    Cancel,
    Correct,
    Decided,
    Feedback,
    Finish,
    HandBack,
    Instruct,
    Notify,
    RefineOutput,
    Review,
    ReviseStep,
    RunState,
)


def _on_decision(s: RunState, event: Decided) -> Result:
    review = s.pending
    if review is None or review.id != event.review_id:
        raise InvalidDecision(f"Review {event.review_id} is not the pending review of run {s.id}.")
    decision = event.decision
    if isinstance(decision, Approve | Answer) and any(a.by == event.by for a in review.approvals):
        raise InvalidDecision(f"{event.by} already approved this; it waits for other approvers.")
    if event.partial:
        if not isinstance(decision, Approve | Answer):
            raise InvalidDecision("Only an approval can count towards a quorum.")
        review.approvals.append(Approval(by=event.by, at=event.at, digest=review.digest))
        needed = review.quorum - len(review.approvals)
        return s, [Notify(text=f"Approved by {event.by}; {needed} more approval{'s' if needed != 1 else ''} needed.")]
    if isinstance(decision, Cancel):
        s.pending = None
        s.error = None
        return _finish(
            s, "cancelled", note=f"Cancelled by {event.by}" + (f": {decision.reason}" if decision.reason else "")
        )
    s.pending = None
    if review.anchor == "handoff":
        return _on_answer(s, event, review)
    if isinstance(decision, Answer):
        raise InvalidDecision("This review is not a question; approve, request changes or cancel.")
    if review.anchor in ("takeover", "takeover_step"):
        return _on_takeover_decision(s, event, review)
    match decision:
        case Approve():
            return _on_approve(s, event, review)
        case Correct():
            return _on_correction(s, event, review, decision)
        case Instruct() | Finish() | HandBack():
            raise InvalidDecision(f"'{decision.kind}' only applies during human takeover.")
        case Answer():  # refused above
            raise AssertionError("unreachable")
        case _:
            assert_never(decision)


def _on_approve(s: RunState, event: Decided, review: Review) -> Result:
    s.retry_step = None
    s.retry_failures = 0
    anchor = review.anchor
    if anchor == "before_result":
        return _finish(s, "done")
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
        return _run(s, step)
    # after_plan, after_risky_step, step_failed: carry on
    return _advance(s, event)


def _on_correction(s: RunState, event: Decided, review: Review, c: Correct) -> Result:
    intent = c.intent
    target = c.target_step or review.step
    s.feedback.append(Feedback(by=event.by, at=event.at, intent=intent, text=c.feedback, step=target))
    if s.retries >= s.policy.max_retries:
        return _takeover(s, event, f"{s.retries} corrections did not get this run right; a person takes over.")
    s.retries += 1
    anchor = review.anchor
    if intent == "refine_output":
        if anchor == "before_result" and s.output is not None:
            s.return_anchor = None
            return _work(s, RefineOutput(feedback=c.feedback), "refining")
        if anchor == "after_plan":
            intent = "replan"
        elif anchor in ("before_risky_step", "recovery"):
            intent = "retry_step"
        else:  # a note about presentation only: keep it for the final result
            s.output_notes.append(c.feedback)
            return _advance(s, event)
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
                return _replan(s, event, f"Step {target} still is not right after two corrections; replanning.")
            s.return_anchor = anchor if anchor in ("after_plan", "after_risky_step") else None
            fix = ReviseStep(number=target, feedback=c.feedback, suggested_fix=c.suggested_fix)
            return _work(s, fix, "retrying")
    s.retry_step, s.retry_failures = None, 0
    return _replan(s, event, "")
