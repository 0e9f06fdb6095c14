"""Handoffs: a tool (``human.ask``) or the unsure planner puts a question to a person; the answer resumes."""

from __future__ import annotations

from typing import Any

from agent.errors import InvalidDecision
from agent.evidence import note_asked
from agent.machine.execution import advance
from agent.machine.helpers import Result, ask_person, finish_run, start_work
from agent.models import (
    ASK_TOOL,
    Answer,
    Approve,
    AskHuman,
    Decided,
    Feedback,
    Handoff,
    MakePlan,
    PlanQuestion,
    Review,
    RunState,
    Step,
    StepPaused,
)
from agent.policy import SafetyPolicy


def on_step_paused(s: RunState, event: StepPaused) -> Result:
    step = s.step(event.number)
    if step.status != "running":
        raise InvalidDecision(f"Step {event.number} of run {s.id} is not running.")
    s.inflight = None
    step.status = "waiting"
    s.executed -= 1  # the step resumes after the answer; it counts once
    h = event.handoff
    deadline = event.at + event.timeout if event.timeout else None
    review = Review(
        id=event.nonce,
        anchor="handoff",
        step=step.number,
        digest=step.digest,
        created_at=event.at,
        handoff=h,
        assignees=event.assignees,
        quorum=event.quorum,
        deadline=deadline,
        remind_at=deadline - 0.2 * event.timeout if deadline and event.timeout else None,
        strategy=event.on_timeout or ("pause" if deadline else None),
        default=h.default,
        evidence=note_asked(s, "handoff", step.number),
    )
    s.pending = review
    s.phase = "human_takeover" if s.takeover else "awaiting_review"
    return s, [AskHuman(review=review)]


def on_plan_question(s: RunState, event: PlanQuestion) -> Result:
    s.inflight = None
    s.planner_questions += 1
    handoff = Handoff(
        prompt=event.question,
        input_type="choice" if event.options else "text",
        options=event.options,
        reason="the planner is not sure what you want",
        max_length=1000,
    )
    return ask_person(s, event, "handoff", handoff=handoff)


def on_answer(s: RunState, event: Decided, review: Review, policy: SafetyPolicy) -> Result:
    d = event.decision
    handoff = review.handoff
    assert handoff is not None
    if review.step is None:  # the planner's question: the answer is feedback for the plan
        if not isinstance(d, Answer) or d.declined:
            raise InvalidDecision("The planner asked a question: answer it (or cancel the run).")
        try:
            value = handoff.validate_answer(d.value)
        except ValueError as exc:
            raise InvalidDecision(f"Invalid answer: {exc}. The question stays open.") from None
        s.feedback.append(Feedback(by=event.by, at=event.at, intent="answer", text=str(value)))
        return start_work(s, MakePlan(), "replanning")
    assert review.step is not None
    if isinstance(d, Approve) and handoff.input_type == "confirm":
        d = Answer(value=True)
    if not isinstance(d, Answer):
        raise InvalidDecision("This is a question from a tool: answer it (or cancel the run).")
    step = s.step(review.step)
    if d.declined:
        if handoff.elicitation is None:
            raise InvalidDecision("Only an MCP server's question can be declined: answer this one (or cancel the run).")
        step.answers.append(handoff.elicitation.reply(None, declined=True))
        step.status = "pending"
        return advance(s, event, policy)
    try:
        value = handoff.validate_answer(d.value)
    except ValueError as exc:
        raise InvalidDecision(f"Invalid answer: {exc}. The question stays open.") from None
    if step.tool == ASK_TOOL:  # asked through the API: the answer is the step's result, and the run's
        return answered(s, step, value, event.at)
    step.answers.append(handoff.elicitation.reply(value) if handoff.elicitation else value)
    step.status = "pending"
    return advance(s, event, policy)


def answered(s: RunState, step: Step, value: Any, at: float) -> Result:
    """An asked run's question is answered: its step is done with the answer as its result, and so is the run."""
    step.answers.append(value)
    step.result = value
    step.status = "done"
    step.finished_at = at
    s.output = str(value).lower() if isinstance(value, bool) else str(value)
    return finish_run(s, "done")
