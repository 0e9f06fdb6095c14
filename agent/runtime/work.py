"""Performing the machine's work: the planner, tools, the reviser, the summarizer, the proposer.

Each piece of work becomes the event that reports its result; a failure of the
model or of a tool is data for the person (an event), never a crash of the loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from typing import Any

from pydantic_core import to_jsonable_python

from agent import human, messages
from agent.config import PolicyConfig
from agent.errors import LLMError, TandemError
from agent.lessons import use_of
from agent.models import (
    Effect,
    Event,
    Lesson,
    MakePlan,
    OutputReady,
    PlanDeclined,
    PlanFailed,
    PlanProposed,
    PlanQuestion,
    ProposedStep,
    ProposeStep,
    RefineOutput,
    ReviseFailed,
    ReviseStep,
    RunState,
    RunStep,
    Step,
    StepFinished,
    StepPaused,
    StepProposedEvent,
    StepRevised,
    Summarize,
    TakeoverReading,
)
from agent.not_done import checked, partly
from agent.ports import Brain
from agent.runtime.credit import credited
from agent.runtime.stopping import CANCEL_GRACE, LateCalls, OutOfTime, within
from agent.tools import ToolRegistry

ToolContext = Callable[[], AbstractContextManager[Any]]
Recall = Callable[[RunState], Awaitable[list[Lesson]]]


async def _nothing(_: RunState) -> list[Lesson]:
    return []


_MAX_RESULT_CHARS = 20_000


class Worker:
    """Carries out work effects with the runtime's brain and tools; knows nothing of storage."""

    def __init__(
        self,
        brain: Brain,
        tools: ToolRegistry,
        config: PolicyConfig,
        tool_context: ToolContext,
        clock: Callable[[], float],
        new_id: Callable[[], str],
        recall: Recall = _nothing,
    ) -> None:
        self.brain = brain
        self.recall = recall
        self.tools = tools
        self.config = config
        self.tool_context = tool_context
        self.clock = clock
        self.new_id = new_id
        self.cancel_grace = CANCEL_GRACE
        self.late = LateCalls(clock)

    async def perform(self, state: RunState, effect: Effect) -> Event | None:
        at = self.clock
        nonce = self.new_id
        match effect:
            case MakePlan():
                lessons = await self.recall(state)
                feedback = [f.text for f in state.feedback]
                rejected = state.rejected_plans[-1] if state.rejected_plans else []
                completed = state.history + [s for s in state.plan if s.status == "done"]
                limit = state.policy.max_steps
                try:
                    steps = await self.brain.plan(
                        state.task,
                        self.tools,
                        feedback=feedback,
                        rejected=rejected,
                        completed=completed,
                        max_steps=limit,
                        # at most two questions per run, then the planner's best guess goes to review
                        ask_below=self.config.confidence_threshold if state.planner_questions < 2 else 0.0,
                        lessons=lessons,
                    )
                except human.PlannerQuestion as ask:
                    return PlanQuestion(at=at(), nonce=nonce(), question=ask.question, options=ask.options)
                except human.NothingToDo as none:
                    return PlanDeclined(at=at(), nonce=nonce(), reason=none.reason)
                except LLMError as exc:
                    return PlanFailed(at=at(), nonce=nonce(), error=str(exc))
                made = await credited(
                    lessons,
                    steps,
                    state.task,
                    self.tools,
                    feedback=feedback,
                    rejected=list(rejected),
                    completed=completed,
                    max_steps=limit,
                )
                uses = [use_of(x) for x in made]
                unknown = self._unknown_asked(state) if effect.anchor is not None else None
                return PlanProposed(at=at(), nonce=nonce(), steps=steps, lessons=uses, unknown=unknown)
            case RunStep():
                return await self._run_step(state, effect.number)
            case ReviseStep():
                from agent.offline.asked import negated_only  # a correction's words; a resume never needs them

                step = state.step(effect.number)
                fix = effect.suggested_fix  # never a value the person said not to use
                fix = None if fix and negated_only(effect.feedback, fix) else fix
                try:
                    params = await self.brain.revise_step(
                        state.task, step, self.tools, feedback=effect.feedback, suggested_fix=fix
                    )
                except LLMError as exc:
                    return ReviseFailed(at=at(), nonce=nonce(), number=effect.number, error=str(exc))
                return StepRevised(at=at(), nonce=nonce(), number=effect.number, params=params)
            case Summarize():
                executed = [self._told(s) for s in state.history + state.plan]
                left = await checked(state, self.tools)
                text = await self.brain.summarize(state.task, executed, state.output_notes)
                return OutputReady(at=at(), nonce=nonce(), text=_headed(text, left, state), not_done=left)
            case RefineOutput():
                executed = state.history + state.plan
                text = await self.brain.refine(state.task, state.output or "", effect.feedback, executed)
                return OutputReady(at=at(), nonce=nonce(), text=_headed(text, state.not_done, state))
            case ProposeStep():
                reading = await self.brain.propose(effect.instruction, state.task, state.plan, self.tools)
                return self._proposal_event(reading)
            case _:
                return None  # AskHuman, Notify, Finished: observers were told at commit time

    def _told(self, step: Step) -> Step:
        """``step`` with what it did in its tool's words, for the result's headline."""
        try:
            return step.model_copy(update={"did": self.tools.get(step.tool).did(step.params)})
        except TandemError:
            return step

    def _unknown_asked(self, state: RunState) -> str | None:
        """Why the latest correction asks for a value a step's tool does not know, if it does."""
        from agent.offline.asked import asked_value  # a correction's words; a resume never needs them
        from agent.offline.tools_match import tool_view

        text = state.feedback[-1].text if state.feedback else ""
        for step in state.plan:
            try:
                spec = self.tools.get(step.tool)
            except TandemError:
                continue
            found = asked_value(tool_view(0, spec.describe()), text, step.params)
            why = spec.unknown_value(found) if found else None
            if why:
                return why
        return None

    def _proposal_event(self, reading: TakeoverReading) -> Event:
        at, nonce = self.clock(), self.new_id()
        if reading.kind == "step" and reading.step is not None:
            try:
                spec = self.tools.get(reading.step.tool)
                params = spec.validate(reading.step.params)
            except TandemError as exc:
                return StepProposedEvent(at=at, nonce=nonce, message=str(exc))
            step = ProposedStep(tool=spec.name, params=params, reason=reading.step.reason, risk=spec.risk)
            return StepProposedEvent(at=at, nonce=nonce, step=step, message=reading.message)
        if reading.kind in ("finish", "hand_back", "cancel"):
            return StepProposedEvent(at=at, nonce=nonce, wish=reading.kind, message=reading.message)
        return StepProposedEvent(at=at, nonce=nonce, message=reading.message or "I could not turn that into a step.")

    async def _run_step(self, state: RunState, number: int) -> StepFinished | StepPaused:
        step = state.step(number)
        key = (state.id, number, step.tool)
        since = self.late.since(key)
        if since is not None:  # never a second copy beside one that may still take effect
            error = messages.still_running(step.tool, since)
            return StepFinished(
                at=self.clock(), nonce=self.new_id(), number=number, ok=False, error=error, timed_out="abandoned"
            )
        try:
            spec = self.tools.get(step.tool)
            with self.tool_context(), human.replay(step.answers):
                call = asyncio.ensure_future(spec.call(step.params, answers=step.answers))
                timeout, stoppable = state.policy.step_timeout, spec.runs_in != "thread"
                result = await within(call, timeout=timeout, stoppable=stoppable, grace=self.cancel_grace)
        except OutOfTime as late:
            if late.outcome == "abandoned":
                self.late.keep(key, call)
            error = f"Timed out after {state.policy.step_timeout:g} s."
            return StepFinished(
                at=self.clock(), nonce=self.new_id(), number=number, ok=False, error=error, timed_out=late.outcome
            )
        except human.NeedsHuman as ask:
            return StepPaused(
                at=self.clock(),
                nonce=self.new_id(),
                number=number,
                handoff=ask.handoff,
                assignees=ask.assignees,
                quorum=ask.quorum,
                timeout=ask.timeout,
                on_timeout=ask.on_timeout,
            )
        except TandemError as exc:
            return StepFinished(at=self.clock(), nonce=self.new_id(), number=number, ok=False, error=str(exc))
        except Exception as exc:  # a tool's own failure is data for the person, never a crash of the loop
            error = f"{type(exc).__name__}: {exc}"
            return StepFinished(at=self.clock(), nonce=self.new_id(), number=number, ok=False, error=error)
        value = to_jsonable_python(result, fallback=str)
        if isinstance(value, str) and len(value) > _MAX_RESULT_CHARS:
            value = (
                value[:_MAX_RESULT_CHARS]
                + f"\n… ({messages.plural(len(value) - _MAX_RESULT_CHARS, 'more character')} cut)"
            )
        return StepFinished(at=self.clock(), nonce=self.new_id(), number=number, ok=True, result=value)


def _headed(text: str, left: list[str], state: RunState) -> str:
    """The result headed "Partly done — not done: …" when parts were left, unless a step failed: then the
    run finished with problems (:func:`agent.outcome.outcome`), and its result keeps the heading that says so."""
    if any(s.status == "failed" for s in (*state.history, *state.plan)):
        return text
    return partly(text, left, state.task)
