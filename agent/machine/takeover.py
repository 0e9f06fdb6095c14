"""Human takeover: a person gives instructions, one approved step at a time, then finishes or hands back."""

from __future__ import annotations

from typing import assert_never

from agent.errors import InvalidDecision
from agent.machine.execution import run_step
from agent.machine.helpers import Result, ask_person, enter_takeover, finish_run, start_work
from agent.messages import plural
from agent.models import (
    Answer,
    Approve,
    Cancel,
    Correct,
    Decided,
    Decision,
    Effect,
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
from agent.policy import SafetyPolicy


def take_over_with(s: RunState, event: Decided, reason: str, instruction: str) -> Result:
    """The correction past the limit hands the run to a person and is their first instruction: it becomes
    the first proposed step (asked about like any other), or the takeover review says why it could not."""
    had = len(s.plan)
    enter_takeover(s, reason)
    aside = had - len(s.plan)
    said = (
        f" The {plural(aside, 'planned step')} that had not run {'is' if aside == 1 else 'are'} set aside."
        if aside
        else ""
    )
    note = Notify(text=f"🧑‍💻 {reason}{said} Your correction “{instruction}” is the first instruction.")
    state, effects = start_work(s, ProposeStep(instruction=instruction), "human_takeover")
    return state, [note, *effects]


def on_takeover_decision(s: RunState, event: Decided, review: Review, policy: SafetyPolicy) -> Result:
    d = event.decision
    if review.anchor == "takeover_step" and isinstance(d, Approve):
        step = s.step(review.step or 0)
        if step.digest != review.digest:
            raise InvalidDecision("The proposed step changed since this approval was asked.")
        step.approved_digest = step.digest
        step.approved_by = event.by
        return run_step(s, step, policy)
    notes: list[Effect] = []
    if review.anchor == "takeover_step":
        # Not approved: the proposal is dropped, visibly; the feedback, if any, is the next instruction.
        dropped = next((x for x in s.plan if x.number == review.step), None)
        s.plan = [x for x in s.plan if x.number != review.step]
        if dropped is not None and not isinstance(d, Cancel):
            notes.append(Notify(text=_dropped(dropped, _said(d))))
    state, effects = _next(s, event, review)
    return state, [*notes, *effects]


def _next(s: RunState, event: Decided, review: Review) -> Result:
    d = event.decision
    match d:
        case Finish() | Approve():
            s.finishing = True
            return start_work(s, Summarize(), "summarizing")
        case HandBack():
            if d.note:
                s.feedback.append(Feedback(by=event.by, at=event.at, intent="hand_back", text=d.note))
            return _hand_back(s)
        case Instruct() | Correct():
            text = _said(d) or ""
            if not text.strip():
                return ask_person(s, event, "takeover", note="Nothing proposed; reply with the next instruction.")
            s.feedback.append(Feedback(by=event.by, at=event.at, intent="instruct", text=text))
            return start_work(s, ProposeStep(instruction=text), "human_takeover")
        case Cancel():  # handled before; kept for exhaustiveness
            return finish_run(s, "cancelled")
        case Answer():
            raise InvalidDecision("Nothing asked a question here; give an instruction, 'finish' or 'hand back'.")
        case _:
            assert_never(d)


def _said(d: Decision) -> str | None:
    """The new instruction a decision carries, if it is one."""
    match d:
        case Instruct():
            return d.text
        case Correct():
            return d.feedback
        case _:
            return None


def _dropped(step: Step, instead: str | None) -> str:
    params = ", ".join(f"{k}={v}" for k, v in step.params.items())
    what = f"the proposed step {step.number} `{step.tool}`" + (f" ({params})" if params else "")
    if instead and instead.strip():
        return f"Replaced {what} with the new instruction “{' '.join(instead.split())[:300]}”."
    return f"Dropped {what}; it did not run."


def _hand_back(s: RunState) -> Result:
    s.takeover = False
    s.takeover_reason = None
    s.retries = 0
    if s.plan:  # else the plan set aside at takeover stays the one to avoid
        s.rejected_plans.append([PlannedStep(tool=x.tool, params=x.params, reason=x.reason) for x in s.plan])
    state, effects = start_work(s, MakePlan(), "replanning")
    return state, [Notify(text="Control handed back to the agent; replanning."), *effects]


def on_step_proposed(s: RunState, event: StepProposedEvent) -> Result:
    s.inflight = None
    if event.wish == "finish":
        s.finishing = True
        return start_work(s, Summarize(), "summarizing")
    if event.wish == "hand_back":
        return _hand_back(s)
    if event.wish == "cancel":
        by = s.feedback[-1].by if s.feedback else None  # who gave the instruction that was read as a cancel
        return finish_run(s, "cancelled", by=by, why=s.feedback[-1].text if s.feedback else "")
    if event.step is None:
        return ask_person(s, event, "takeover", note=event.message or "I could not turn that into a step.")
    p = event.step
    number = max((x.number for x in (*s.history, *s.plan)), default=0) + 1
    step = Step(number=number, tool=p.tool, params=p.params, reason=p.reason, risk=p.risk)
    s.plan.append(step)
    return ask_person(s, event, "takeover_step", number, digest=step.digest, note=event.message or None)
