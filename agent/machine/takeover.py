"""Human takeover: a person gives instructions, one approved step at a time, then finishes or hands back."""

from __future__ import annotations

from typing import assert_never

from agent.errors import InvalidDecision
from agent.machine.execution import _run
from agent.machine.helpers import Result, _ask, _finish, _work
from agent.models import (
    Answer,
    Approve,
    Cancel,
    Correct,
    Decided,
    Feedback,
    Finish,
    HandBack,
    Instruct,
    MakePlan,
    Notify,
    PlannedStep,
    ProposeStep,
    Review,
    RunState,
    Step,
    StepProposedEvent,
    Summarize,
)


def _on_takeover_decision(s: RunState, event: Decided, review: Review) -> Result:
    d = event.decision
    if review.anchor == "takeover_step" and isinstance(d, Approve):
        step = s.step(review.step or 0)
        if step.digest != review.digest:
            raise InvalidDecision("The proposed step changed since this approval was asked.")
        step.approved_digest = step.digest
        step.approved_by = event.by
        return _run(s, step)
    if review.anchor == "takeover_step":
        # Rejected: the proposal is dropped; the feedback, if any, is the next instruction.
        s.plan = [x for x in s.plan if x.number != review.step]
    match d:
        case Finish() | Approve():
            s.finishing = True
            return _work(s, Summarize(), "summarizing")
        case HandBack():
            if d.note:
                s.feedback.append(Feedback(by=event.by, at=event.at, intent="hand_back", text=d.note))
            return _hand_back(s)
        case Instruct():
            s.feedback.append(Feedback(by=event.by, at=event.at, intent="instruct", text=d.text))
            return _work(s, ProposeStep(instruction=d.text), "human_takeover")
        case Correct():
            s.feedback.append(Feedback(by=event.by, at=event.at, intent="instruct", text=d.feedback))
            return _work(s, ProposeStep(instruction=d.feedback), "human_takeover")
        case Cancel():  # handled before; kept for exhaustiveness
            return _finish(s, "cancelled")
        case Answer():
            raise InvalidDecision("Nothing asked a question here; give an instruction, 'finish' or 'hand back'.")
        case _:
            assert_never(d)


def _hand_back(s: RunState) -> Result:
    s.takeover = False
    s.takeover_reason = None
    s.retries = 0
    s.rejected_plans.append([PlannedStep(tool=x.tool, params=x.params, reason=x.reason) for x in s.plan])
    state, effects = _work(s, MakePlan(), "replanning")
    return state, [Notify(text="Control handed back to the agent; replanning."), *effects]


def _on_step_proposed(s: RunState, event: StepProposedEvent) -> Result:
    s.inflight = None
    if event.wish == "finish":
        s.finishing = True
        return _work(s, Summarize(), "summarizing")
    if event.wish == "hand_back":
        return _hand_back(s)
    if event.wish == "cancel":
        return _finish(s, "cancelled", note="Cancelled at the person's instruction.")
    if event.step is None:
        return _ask(s, event, "takeover", note=event.message or "I could not turn that into a step.")
    p = event.step
    number = max((x.number for x in (*s.history, *s.plan)), default=0) + 1
    step = Step(number=number, tool=p.tool, params=p.params, reason=p.reason, risk=p.risk)
    s.plan.append(step)
    return _ask(s, event, "takeover_step", number, digest=step.digest, note=event.message or None)
