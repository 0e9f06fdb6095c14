"""The loop's decisions, made by a chat model: build the prompt, ask, parse, validate.

Every answer is one JSON object. An answer that is not valid JSON or does not fit
its schema gets ONE repair round (the bad answer goes back with what is wrong);
after that each purpose has a documented fallback:

- plan -> :class:`PlanError`; revise -> :class:`ReviseError`
- classify -> the offline reader's reading; never raises
- summarize / refine -> a plain text built from the steps, so the result is never lost
- propose -> ``TakeoverReading(kind="unclear")``

How sure a reading is comes from evidence Tandem controls, never from the model's own
``confidence``: the offline reader reads every reply first; when it is certain
(:data:`~agent.offline.CERTAIN`) no model is asked. Otherwise the two readings are combined by
:func:`agent.readings.combine`, so adding a model never makes a reading worse: a model's reading
that makes no sense where the reply was typed is never taken, and a model overrides the offline
reader only where that found nothing to go on.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, field_validator

from agent import facts, offline, prompts, usage  # offline: its heuristics load when first used
from agent.capabilities import LEAD
from agent.errors import LLMError, PlanError, ReviseError, ToolError
from agent.human import PlannerQuestion
from agent.models import Lesson, PlannedStep, ProposedStep, Reading, Step, TakeoverReading
from agent.offline.model import OfflineModel
from agent.ports import ChatModel, ClassifyContext, LLMRequest
from agent.readings import ReadingKind, combine
from agent.tools import ToolRegistry
from agent.toolscope import can_do, nothing_to_do, refuses, unknown_target

__all__ = ["UNREADABLE", "LLMBrain", "Unusable", "parse_json_object"]

log = logging.getLogger(__name__)
T = TypeVar("T")

_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.DOTALL)
_INTENT_ALIASES = {
    "retry": "retry_step",
    "refine": "refine_output",
    "approved": "approve",
    "cancelled": "cancel",
    "ask": "question",
}
UNREADABLE = "could not read the model's answer"


class Unusable(Exception):
    """An answer that cannot be used; the message says why (it is sent back for repair)."""


# --- answer shapes (lenient about extra keys, strict about the ones we use) ----


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore", defer_build=True)  # built when a model first answers


class _StepAnswer(_Answer):
    tool: str = Field(min_length=1)
    params: dict[str, Any] | None = None
    reason: str = ""


class _PlanAnswer(_Answer):
    steps: list[_StepAnswer] = Field(default_factory=list)
    confidence: float | None = None
    question: str | None = None
    options: list[str] = Field(default_factory=list)
    unable: str | None = None  # no tool can do any part of the task: why


class _ReviseAnswer(_Answer):
    params: dict[str, Any]
    reason: str = ""


class _TextAnswer(_Answer):
    text: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class _ClassifyAnswer(_Answer):
    intent: ReadingKind
    target_step: int | None = None
    reason: str = ""
    confidence: float = 0.5
    suggested_fix: str | None = None

    @field_validator("intent", mode="before")
    @classmethod
    def _normal_intent(cls, value: Any) -> Any:
        if isinstance(value, str):
            key = value.strip().lower().replace("-", "_").replace(" ", "_")
            return _INTENT_ALIASES.get(key, key)
        return value

    @field_validator("confidence", mode="after")
    @classmethod
    def _clamp(cls, value: float) -> float:
        return min(1.0, max(0.0, value))


class _ProposeAnswer(_Answer):
    kind: Literal["step", "finish", "hand_back", "cancel", "unclear"]
    step: _StepAnswer | None = None
    message: str = ""


# --- the brain -----------------------------------------------------------------


class LLMBrain:
    """Implements :class:`agent.ports.Brain` on top of any :class:`agent.ports.ChatModel`."""

    def __init__(self, model: ChatModel, *, read_first: bool = True) -> None:
        self.model = model
        self.read_first = read_first
        """False: ask the model about every reply, even one the offline reader is certain of (to measure it)."""

    @property
    def local(self) -> bool:
        """Whether its model answers in this process, at once and at no cost (a model says so by ``local``)."""
        return getattr(self.model, "local", False) is True

    async def plan(
        self,
        task: str,
        tools: ToolRegistry,
        *,
        feedback: list[str],
        rejected: list[PlannedStep],
        completed: list[Step],
        max_steps: int,
        ask_below: float = 0.0,
        lessons: Sequence[Lesson] = (),
    ) -> list[ProposedStep]:
        """A validated plan, made with what ``lessons`` from earlier corrections teach. With ``ask_below``,
        a planner that says it is less sure than that
        and has a question raises PlannerQuestion instead of guessing."""
        request = prompts.plan_request(
            prompts.plan_context(
                task,
                tools,
                feedback=feedback,
                rejected=rejected,
                completed=completed,
                max_steps=max_steps,
                lessons=lessons,
            )
        )
        # A replan keeps the task: what the offline planner keeps and leaves out is checked once
        # against the model's plan, and a plan that drops a part nobody took back goes back for repair.
        replan = bool(feedback or rejected) and self.model.name != OfflineModel.name
        parts = await asyncio.to_thread(_parts, request.context) if replan else None
        answers: list[str] = []

        def outside() -> bool:
            """No part of the task is anything the tools do (read without the model, so an ops task whose
            plan came back empty still reaches a person instead of ending)."""
            return offline.outside_tools(task, [s.describe() for s in tools.specs()])

        def parse(answer: str) -> list[ProposedStep]:
            answers.append(answer)
            try:
                data = parse_json_object(answer, allow_list=True)
            except Unusable:
                if refuses(answer) and outside():  # a refusal in prose, of a task no tool fits
                    raise nothing_to_do(task, tools, answer) from None
                raise
            plan = _validate(_PlanAnswer, {"steps": data} if isinstance(data, list) else data)
            question = (plan.question or "").strip()
            unsure = plan.confidence is not None and plan.confidence < ask_below
            if not plan.steps and outside():  # nothing to approve: the run ends at once, saying what can be done
                raise nothing_to_do(task, tools, plan.unable or "")
            if question and ask_below > 0 and (unsure or not plan.steps):
                raise PlannerQuestion(question if plan.steps else f"{question}\n{can_do(tools)}", plan.options)
            if not plan.steps:
                raise Unusable(
                    'the plan has no steps; a plan needs at least one {"tool", "params", "reason"} step, '
                    'or, when no tool can do any part of the task, {"steps": [], "unable": "<why>"}.'
                )
            if len(plan.steps) > max_steps:
                raise Unusable(f"the plan has {len(plan.steps)} steps but at most {max_steps} are allowed.")
            steps = _checked_steps(plan.steps, tools)
            problem = parts.problem([s.tool for s in steps]) if parts is not None and len(answers) == 1 else None
            if problem:  # asked about once; a repaired plan is taken as it is (a person reviews it)
                raise Unusable(problem)
            return steps

        try:
            return await self._ask(request, parse)
        except Unusable as exc:
            raise PlanError(
                f"The model '{self.model.name}' gave no usable plan: {exc} "
                "Rephrase the task (name the action and its target), or check TANDEM_MODEL if this keeps happening."
            ) from None
        except PlanError:
            raise
        except LLMError as exc:
            raise PlanError(f"No plan could be made. {exc}") from exc

    async def revise_step(
        self, task: str, step: Step, tools: ToolRegistry, *, feedback: str, suggested_fix: str | None
    ) -> dict[str, Any]:
        try:
            spec = tools.get(step.tool)
        except ToolError as exc:
            raise ReviseError(f"Step {step.number} cannot be revised: {exc}") from None
        request = prompts.revise_request(task, step, tools, feedback=feedback, suggested_fix=suggested_fix)

        def parse(answer: str) -> dict[str, Any]:
            revised = _validate(_ReviseAnswer, parse_json_object(answer))
            unknown = spec.unknown_value(revised.params)
            if unknown is not None:  # the value the person asked for does not exist: say so, ask no repair
                raise ReviseError(unknown)
            try:
                return spec.validate({**step.params, **revised.params})
            except ToolError as exc:
                raise Unusable(str(exc)) from None

        try:
            return await self._ask(request, parse)
        except Unusable as exc:
            raise ReviseError(
                f"The model '{self.model.name}' gave no usable parameters for step {step.number} "
                f"({step.tool}): {exc} Say the exact value to use, e.g. 'use 3 replicas'."
            ) from None
        except ReviseError:
            raise
        except LLMError as exc:
            raise ReviseError(f"Step {step.number} could not be revised. {exc}") from exc

    async def summarize(self, task: str, steps: list[Step], notes: list[str]) -> str:
        request = prompts.summarize_request(task, steps, notes)
        try:
            return await self._ask(request, _text)
        except (Unusable, LLMError) as exc:
            log.warning("summary written without the model: %s", exc)
            plain = offline.render_summary(task, [prompts.step_view(s) for s in steps], notes)
            return f"{plain}\n\n_(Written without the model: {_short(exc)})_"

    async def refine(self, task: str, output: str, feedback: str, steps: list[Step]) -> str:
        """The result reworked as ``feedback`` asks: presentation only. A model's text that drops a
        number of what ran (without saying it left something out), or gives no table where one was
        asked for, is sent back once, then replaced by the offline rework."""
        request = prompts.refine_request(task, output, feedback, steps)
        kept = facts.facts_of(steps)

        def parse(answer: str) -> str:
            text = _text(answer)
            if missing := facts.dropped(text, kept):
                raise Unusable(
                    f"the text drops {', '.join(missing[:12])}; keep every number of the result, "
                    "or say what you left out"
                )
            if facts.wants_table(feedback) and not facts.has_table(text):
                raise Unusable("a table was asked for; give a Markdown table (a header row, then | --- |)")
            return text

        try:
            return await self._ask(request, parse)
        except (Unusable, LLMError) as exc:
            log.warning("refinement done without the model: %s", exc)
            plain = offline.apply_refinement(task, output, feedback, [prompts.step_view(s) for s in steps])
            return f"{plain}\n\n_(Reworked without the model: {_short(exc)})_"

    async def classify(self, text: str, context: ClassifyContext) -> Reading:
        request = prompts.classify_request(text, context)
        # off the event loop: the reply may be long (it is read up to READ_LIMIT characters)
        local = Reading(
            **_validate(
                _ClassifyAnswer,
                await asyncio.to_thread(offline.classify_text, request.context["text"], request.context),
            ).model_dump()
        )
        if self.model.name == OfflineModel.name or (self.read_first and local.confidence >= offline.CERTAIN):
            return local

        def parse(answer: str) -> Reading:
            reading = _validate(_ClassifyAnswer, parse_json_object(answer))
            return Reading(**reading.model_dump())

        try:
            read = await self._ask(request, parse)
        except Exception as exc:  # classify never raises: a person's words must always get an answer
            log.warning("the model's reading could not be had; the offline reading stands: %s", exc)
            why = f"{UNREADABLE}; the offline reading stands"
            return local.model_copy(update={"reason": f"{local.reason} ({why})" if local.reason else why})
        steps = [s.number for s in context.steps]
        return combine(read, local, anchor=context.anchor, step=context.step, steps=steps)

    async def propose(self, instruction: str, task: str, steps: list[Step], tools: ToolRegistry) -> TakeoverReading:
        """One step for a person's instruction, or why none: a target the tools do not know is named, and
        an instruction no tool can do gets what the tools can do, never a step bent onto another target."""
        request = prompts.propose_request(instruction, task, steps, tools)
        if self.model.name != OfflineModel.name and offline.cancels(instruction):  # "just cancel this": no model needed
            return TakeoverReading(kind="cancel", message="Cancelling the run.")

        def parse(answer: str) -> TakeoverReading:
            proposal = _validate(_ProposeAnswer, parse_json_object(answer))
            if proposal.kind == "unclear":
                said = proposal.message.strip()
                whole = self.model.name == OfflineModel.name or LEAD in said  # already says it
                more = "" if whole else f" {can_do(tools)}"
                return TakeoverReading(kind="unclear", message=f"{said}{more}".strip())
            if proposal.kind != "step":
                return TakeoverReading(kind=proposal.kind, message=proposal.message)
            if proposal.step is None:
                raise Unusable('kind is "step" but "step" is missing; give {"tool", "params", "reason"}.')
            unknown = unknown_target(instruction, proposal.step.tool, proposal.step.params or {}, tools)
            if unknown is not None:
                return TakeoverReading(kind="unclear", message=f"{unknown} Nothing was proposed.")
            (checked,) = _checked_steps([proposal.step], tools)
            step = PlannedStep(tool=checked.tool, params=checked.params, reason=checked.reason)
            return TakeoverReading(kind="step", step=step, message=proposal.message)

        try:
            return await self._ask(request, parse)
        except (Unusable, LLMError) as exc:
            log.warning("takeover instruction not understood: %s", exc)
            return TakeoverReading(
                kind="unclear",
                message=f"I could not turn “{instruction}” into a step ({_short(exc)}). {can_do(tools)} "
                "Name one action and its target, or say “finish” or “hand back”.",
            )

    async def _ask(self, request: LLMRequest, parse: Callable[[str], T]) -> T:
        """Ask, parse; on an unusable answer ask once more with the problem named."""
        usage.note_call(self.model.name)
        answer = await self.model.complete(request)
        try:
            return parse(answer)
        except Unusable as exc:
            log.info("%s answer unusable, asking for a repair: %s", request.purpose, exc)
            usage.note_call(self.model.name)
            repaired = await self.model.complete(prompts.repair_request(request, answer, str(exc)))
            return parse(repaired)


def _parts(context: dict[str, Any]) -> offline.PlanParts | None:
    try:
        return offline.plan_parts(context)
    except Exception as exc:  # a heuristic bug costs the check, never the plan
        log.warning("could not check the replan against the task: %s", exc)
        return None


# --- parsing helpers -------------------------------------------------------------


def parse_json_object(answer: str, *, allow_list: bool = False) -> Any:
    """The JSON object in a model's answer (code fences and surrounding prose tolerated)."""
    text = answer.strip()
    try:
        # A bare JSON answer first: its strings may themselves contain ``` fences.
        data = json.loads(text)
    except json.JSONDecodeError:
        fenced = _FENCE.search(text) if not text.startswith("{") else None
        if fenced:
            text = fenced.group(1).strip()
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            data = _embedded(text)
    if isinstance(data, dict) or (allow_list and isinstance(data, list)):
        return data
    raise Unusable(f"expected one JSON object, got {type(data).__name__}: {_clip(answer)}")


def _embedded(text: str) -> Any:
    start = text.find("{")
    if start < 0:
        raise Unusable(f"the answer contains no JSON object: {_clip(text)}")
    try:
        data, _ = json.JSONDecoder().raw_decode(text[start:])
    except json.JSONDecodeError as exc:
        raise Unusable(f"the answer is not valid JSON ({exc.msg} at char {exc.pos}): {_clip(text)}") from None
    return data


M = TypeVar("M", bound=BaseModel)


def _validate(model: type[M], data: Any) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'answer'}: {err['msg']}" for err in exc.errors()[:5]
        )
        raise Unusable(f"the JSON does not have the asked shape ({problems}).") from None


def _checked_steps(steps: list[_StepAnswer], tools: ToolRegistry) -> list[ProposedStep]:
    """Every step through the registry: known tool, params valid (defaults filled)."""
    checked: list[ProposedStep] = []
    problems: list[str] = []
    for number, step in enumerate(steps, start=1):
        try:
            spec = tools.get(step.tool)
            params = spec.validate(step.params or {})
        except ToolError as exc:
            problems.append(f"step {number}: {exc}")
            continue
        checked.append(ProposedStep(tool=spec.name, params=params, reason=step.reason, risk=spec.risk))
    if problems:
        raise Unusable(" ".join(problems))
    return checked


def _text(answer: str) -> str:
    return _validate(_TextAnswer, parse_json_object(answer)).text


def _clip(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _short(exc: BaseException) -> str:
    return _clip(str(exc), 200).rstrip(".")
