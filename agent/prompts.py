"""What the model is asked, one builder per purpose.

Each builder returns an :class:`~agent.ports.LLMRequest`: chat ``messages`` for a
real model, and the same facts as structured ``context`` for the offline model.
Every prompt demands ONE JSON object in the message content and states its shape;
:mod:`agent.brain` parses and validates the answers.

Context keys (all JSON-able):

- plan: task, tools (``ToolSpec.describe()`` dicts), feedback (list of str),
  rejected (planned-step dicts), completed (step views), max_steps
- revise: task, step (step view), tool (describe dict), feedback, suggested_fix
- summarize: task, steps (step views), notes
- refine: task, output, feedback, steps
- classify: text, task, anchor, step, steps, output
- propose: instruction, task, steps, tools

What a person wrote (text, feedback, suggested_fix, instruction) is read up to :data:`READ_LIMIT`
characters, in the messages and the context alike.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agent.models import Lesson, PlannedStep, Step
from agent.offline.vocabulary import split_clauses
from agent.ports import ClassifyContext, LLMRequest, Purpose
from agent.readings import KINDS, POSSIBLE, ReadingKind
from agent.tools import ToolRegistry

__all__ = [
    "ANCHOR_GUIDE",
    "CLASSIFY_SCHEMA",
    "CLASSIFY_SHAPE",
    "PLAN_SHAPE",
    "PROPOSE_SHAPE",
    "READ_LIMIT",
    "REVISE_SHAPE",
    "TEXT_SHAPE",
    "classify_request",
    "plan_context",
    "plan_request",
    "propose_request",
    "refine_request",
    "repair_request",
    "revise_request",
    "step_view",
    "summarize_request",
]

PLAN_SHAPE = (
    '{"steps": [{"tool": "<tool name>", "params": {"<name>": <value>}, "reason": "<one short sentence>"}], '
    '"confidence": <0..1>, "question": "<only when unsure>", "options": ["<only when unsure>"]}'
)
REVISE_SHAPE = '{"params": {"<name>": <value>}, "reason": "<what changed and why>"}'
TEXT_SHAPE = '{"text": "<markdown for a chat message>"}'
CLASSIFY_SHAPE = (
    '{"intent": "approve" | "cancel" | "replan" | "retry_step" | "refine_output" | "question", '
    '"target_step": <step number> | null, "reason": "<short>", "suggested_fix": "<the new value or change>" | null}'
)
PROPOSE_SHAPE = (
    '{"kind": "step" | "finish" | "hand_back" | "cancel" | "unclear", '
    '"step": {"tool": "<tool name>", "params": {...}, "reason": "<short>"} | null, "message": "<short>"}'
)

_JSON_ONLY = "Answer with ONE JSON object and nothing else (no prose, no code fences), exactly this shape:\n"
_ITEM_LIMIT = 4000  # a huge step result must not crowd out the rest of the prompt
READ_LIMIT = 4000
"""How much of what a person writes (a reply, feedback, an instruction) any model reads, in characters.
A pasted log or a message of blank lines must not take a model minutes; the stored text stays whole."""

PLANNER = f"""You are the planner of Tandem, an ops agent whose work people review in chat.
Turn the task into a short plan of tool calls.
Rules:
- Use only the tools listed. Parameters must match the tool's JSON schema exactly: every required \
parameter present, enum values spelled exactly as listed, no parameters the schema does not define.
- Keep the order the person asked for ("restart X and check errors after" = restart first, then check).
- Use at most {{max_steps}} steps; fewer is better. Do not add steps nobody asked for.
- Completed steps have already run; plan only the remaining work.
- When feedback on an earlier plan is given, the new plan must follow it (other service, drop or add steps).
- Lessons are corrections people made to earlier plans of this kind: where one is about a tool and target \
this plan uses, follow it (the corrected values, the step it asked to add) unless the task says otherwise.
- A replan keeps the task: every part of the task and of earlier feedback stays in the new plan unless a \
person took it back ("don't restart", "skip the logs", "just X"). A condition ("only restart if there are \
errors") keeps the check it depends on, before the step it guards.
- Feedback is listed oldest first. Where two messages conflict, the latest wins and replaces the older one \
(a later "use auth" replaces an earlier "use checkout"; a later "do check the logs" brings back a step an \
earlier message dropped); do not keep both.
- "reason" says in one short sentence why the step is there.
- "confidence" (0 to 1) says how sure you are that this is what the person wants. If you would have to \
guess the target or the action, add "question": one short question to the person (and, if the answer is one \
of a few, "options": the possible answers) instead of guessing.
- If no tool can do any part of the task (it is not about the systems these tools work on), give no steps \
and say why in "unable": {{"steps": [], "unable": "<one short sentence>"}}. Never plan an unrelated step instead.
{_JSON_ONLY}{PLAN_SHAPE}"""

REVISER = f"""You are the step reviser of Tandem, an ops agent. A person corrected one step of a plan.
Give the complete new parameters for that step, following the feedback. Keep the same tool.
Parameters must match the tool's JSON schema exactly (enum values spelled as listed, no extra keys).
{_JSON_ONLY}{REVISE_SHAPE}"""

SUMMARIZER = f"""You are the reporter of Tandem, an ops agent. Write the result of the task for the chat channel:
what was done, what was found (numbers, states, errors) and anything that still needs a person.
Use only the step results given; never invent results. Title it by what actually ran, not by the task:
name any part of the task that did not run as not done, and say what was changed on the way.
Write in the language the task is written in. Standard Markdown (a table as a pipe table), short,
with the key facts first.
{_JSON_ONLY}{TEXT_SHAPE}"""

REFINER = f"""You are the reporter of Tandem, an ops agent. A person asked to change how the result is presented.
Rewrite the current result following the feedback (format, length, language, emphasis). Nothing is re-run:
use only the facts already in the result and the step results. Never drop a failure, a warning, a number or
a step unless the person asked for less, and then say what you left out. Keep the requester's language
unless they ask for another. Standard Markdown (a table as a pipe table).
{_JSON_ONLY}{TEXT_SHAPE}"""

CLASSIFIER = f"""You read what a person wrote in chat while reviewing an ops agent's work, and say what they want.
Intents:
- "approve": they agree and want the agent to go on, in any language: "lgtm", "go ahead", "ship it", \
"可以，执行吧", "没问题", "继续". A negated approval ("not good", "don't proceed", "不行") is never approve, \
and neither is an approval with a change request ("ok, but use 5 replicas", "可以，但是用表格").
- "cancel": stop the whole run and do nothing else ("cancel", "abort", "取消", "算了"). A reply that stops \
one action and asks for another, or drops a step and keeps the rest ("don't X, do Y instead", "skip X", \
"不要 X，改成 Y"), is replan, never cancel.
- "retry_step": one step is right but a value in it is wrong, or it should run again. Set "target_step" \
to that step's number and "suggested_fix" to the new value.
- "replan": the approach, the order or the set of steps is wrong: another action, an action they do not \
want, a step to add or drop, something to do first.
- "refine_output": only the presentation of a result already shown changes (table, sorting, shorter, \
language). Nothing is re-run. A step to add, drop, move or change ("also check X", "add a step", \
"do X first") is replan or retry_step, never refine_output. Before the result is shown there is no \
output to rework: refine_output is then never the answer.
- "question": they only ask something ("why restart it?", "what will this change?", "为什么要重启？", \
"what did the logs say?") and ask for no change; it is answered and nothing changes. A request phrased \
as a question ("can you use 5 replicas?", "why not roll back instead?") is not a question.
Examples (anchor: reply -> intent):
- before_risky_step: "replicas should be 5, not 3" -> retry_step (the step under review), fix "5"
- before_risky_step: "环境写错了，应该用 checkout" -> retry_step (the step under review), fix "checkout"
- before_risky_step: "no, do NOT deploy this" -> replan
- after_plan: "no scaling, just drop the cache" / "不要清缓存，改成重启" -> replan (not cancel)
- after_plan: "also query the error rate" / "加一步：通知 #ops" -> replan (not refine_output)
- after_risky_step: "leave out the notification, check auth instead" -> replan
- after_plan: "先看日志再重启" / "check the logs first, then restart" -> replan
- after_plan: "read 50 log lines, not 20" -> retry_step (the step that reads logs), fix "50"
- step_failed: "再试一次" / "try again" -> retry_step (the failed step)
- step_failed: "ignore it and continue" -> approve
- before_result: "show it as a table" / "用表格展示" / "sort by p99" / "make it shorter" -> refine_output
- before_result: "ok, but 按 error rate 排序" -> refine_output
- before_risky_step: "why restart it?" / "为什么要重启？" -> question (the step under review)
- before_risky_step: "Don't deploy yet. Check the error logs first, then ask me again" -> replan
The anchor says where the run is paused; read the reply for that place (see "At this anchor"), and \
answer only with an intent listed under "Possible here".
{_JSON_ONLY}{CLASSIFY_SHAPE}"""

ANCHOR_GUIDE = {
    "after_plan": "Nothing has run yet. A changed value of one step is retry_step on that step; a changed "
    "order, approach, service for the whole task, or an added or dropped step is replan.",
    "before_risky_step": "Nothing has run yet; the step under review waits for approval. A changed value "
    "(a number, version, service, channel) is retry_step on the step under review; another action, a "
    "changed order or 'do not do this' is replan.",
    "after_risky_step": "The step under review has just run. Doing it again or with another value is "
    "retry_step on it; another action or a changed order for the rest is replan; going on is approve.",
    "step_failed": "The step under review failed. Trying again (with or without another value) is retry_step "
    "on it; another action is replan; going on without it is approve.",
    "before_result": "Everything has run and the result is shown. How it is presented (format, order, length, "
    "language, what to show) is refine_output; a wrong value in a step is retry_step on it; another action "
    "is replan.",
    "recovery": "A step was cut off mid-way. Running it again is approve; another value is retry_step.",
}

CLASSIFY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "intent": {"type": "string", "enum": list(KINDS)},
        "target_step": {"type": ["integer", "null"]},
        "reason": {"type": "string"},
        "suggested_fix": {"type": ["string", "null"]},
    },
    "required": ["intent", "target_step", "reason", "suggested_fix"],
    "additionalProperties": False,
}
"""What the classifier answers, as a JSON schema: models that take one are held to the intents by enum."""

PROPOSER = f"""A person has taken over an ops agent and gives it one instruction at a time.
Turn the instruction into at most ONE tool call, or recognise a control word:
- "finish": they are done and want the result written ("finish", "done", "wrap up", "完成", "结束").
- "hand_back": the agent should continue the task on its own ("hand back", "continue on your own", "你继续").
- "cancel": stop the run ("cancel", "取消").
- "step": one tool call; parameters must match the tool's JSON schema exactly.
- "unclear": you cannot tell; "message" says what to write instead.
{_JSON_ONLY}{PROPOSE_SHAPE}"""


def plan_context(
    task: str,
    tools: ToolRegistry,
    *,
    feedback: list[str],
    rejected: list[PlannedStep],
    completed: list[Step],
    max_steps: int,
    lessons: Sequence[Lesson] = (),
) -> dict[str, Any]:
    """A plan request's facts as structured data: the offline planner's input, and what
    :func:`plan_request` writes the prompt of a real model from."""
    return {
        "task": task,
        "tools": tools.describe(),
        "feedback": [_as_read(f) for f in feedback],
        "rejected": [s.model_dump(mode="json") for s in rejected],
        "completed": [step_view(s) for s in completed],
        "max_steps": max_steps,
        "lessons": [lesson_view(x) for x in lessons],
    }


def plan_request(context: dict[str, Any]) -> LLMRequest:
    """The plan request a model reads, made from :func:`plan_context`'s facts."""
    task, feedback = str(context["task"]), list(context["feedback"])
    parts = [f"Task: {task}", _section("Tools", context["tools"])]
    if context["lessons"]:
        parts.append(_section(LESSONS_HEADING, context["lessons"]))
    if context["completed"]:
        parts.append(_section("Completed steps (already run)", context["completed"]))
    if context["rejected"]:
        parts.append(_section("Rejected plan", context["rejected"]))
    if feedback:
        pieces = split_clauses(task)
        if len(pieces) > 1:
            parts.append(_section("Parts of the task (each stays unless feedback takes it back)", pieces))
        numbered = [f"{n}. {f}" for n, f in enumerate(feedback, start=1)]
        parts.append(
            _section("Feedback, oldest first (follow all of it; where two conflict, the latest wins)", numbered)
        )
    parts.append(f"Reply with the plan as {PLAN_SHAPE}")
    system = PLANNER.replace("{max_steps}", str(context["max_steps"]))
    return _request("plan", system, parts, context)


LESSONS_HEADING = (
    "Lessons from earlier corrections (apply one only to a step of the tool and target it names; "
    "the task's own words win: where the task names a value, keep it, unless the lesson lists that "
    "parameter in overrides_task_words and the task names the very value in instead_of)"
)


def lesson_view(lesson: Lesson) -> dict[str, Any]:
    """A lesson as the planner reads it: what was said, and what it changed."""
    view: dict[str, Any] = {"said": _as_read(lesson.text)}
    if lesson.tool:
        view["tool"] = lesson.tool
    if lesson.target:
        view["target"] = lesson.target
    if lesson.after:
        view["use"] = lesson.after
        view["instead_of"] = lesson.before
    if lesson.named:
        view["overrides_task_words"] = lesson.named
    for field, places in (("add_steps", lesson.added), ("remove_steps", lesson.removed), ("move_steps", lesson.moved)):
        if places:
            view[field] = [p.model_dump(mode="json", exclude_none=True) for p in places]
    return view


def revise_request(
    task: str, step: Step, tools: ToolRegistry, *, feedback: str, suggested_fix: str | None
) -> LLMRequest:
    spec = tools.get(step.tool)
    feedback, suggested_fix = _as_read(feedback), suggested_fix and _as_read(suggested_fix)
    context: dict[str, Any] = {
        "task": task,
        "step": step_view(step),
        "tool": spec.describe(),
        "feedback": feedback,
        "suggested_fix": suggested_fix,
    }
    parts = [
        f"Task: {task}",
        _section(f"Step {step.number}", context["step"]),
        _section("Its tool", context["tool"]),
        f"Feedback: {feedback}",
    ]
    if suggested_fix:
        parts.append(f"Suggested fix: {suggested_fix}")
    parts.append(f"Reply with {REVISE_SHAPE}")
    return _request("revise", REVISER, parts, context)


def summarize_request(task: str, steps: list[Step], notes: list[str]) -> LLMRequest:
    context: dict[str, Any] = {"task": task, "steps": [step_view(s) for s in steps], "notes": list(notes)}
    parts = [f"Task: {task}", _section("Steps and results", context["steps"])]
    if notes:
        parts.append(_section("Notes from people", context["notes"]))
    parts.append(f"Reply with {TEXT_SHAPE}")
    return _request("summarize", SUMMARIZER, parts, context)


def refine_request(task: str, output: str, feedback: str, steps: list[Step]) -> LLMRequest:
    feedback = _as_read(feedback)
    context: dict[str, Any] = {
        "task": task,
        "output": output,
        "feedback": feedback,
        "steps": [step_view(s) for s in steps],
    }
    parts = [
        f"Task: {task}",
        f"Current result:\n{output}",
        f"Feedback: {feedback}",
        _section("Step results (for facts only)", context["steps"]),
        f"Reply with {TEXT_SHAPE}",
    ]
    return _request("refine", REFINER, parts, context)


def classify_request(text: str, context: ClassifyContext) -> LLMRequest:
    text = _as_read(text)
    data: dict[str, Any] = {
        "text": text,
        "task": context.task,
        "anchor": context.anchor,
        "step": context.step,
        "steps": [step_view(s) for s in context.steps],
        "output": context.output,
        "known": context.known,
    }
    parts = [f"Task: {context.task}", f"Anchor (where the run is paused): {context.anchor}"]
    if context.anchor in ANCHOR_GUIDE:
        parts.append(f"At this anchor: {ANCHOR_GUIDE[context.anchor]}")
    possible = [k for k in KINDS if k in POSSIBLE.get(context.anchor, frozenset(KINDS))]
    parts.append(f"Possible here: {', '.join(possible)}")
    if context.step is not None:
        parts.append(f"Step under review: {context.step}")
    if context.steps:
        parts.append(_section("Plan", [_brief(s) for s in data["steps"]]))
    if context.known:
        parts.append(_section("Known values", context.known))
    if context.output:
        parts.append(f"Current result:\n{context.output}")
    parts.append(f"The person wrote: {text}")
    parts.append(f"Reply with {CLASSIFY_SHAPE}")
    request = _request("classify", CLASSIFIER, parts, data)
    schema = {**CLASSIFY_SCHEMA, "properties": {**CLASSIFY_SCHEMA["properties"], "intent": _enum(possible)}}
    return request.model_copy(update={"answer_schema": schema})


def _enum(values: list[ReadingKind]) -> dict[str, Any]:
    return {"type": "string", "enum": list(values)}


def propose_request(instruction: str, task: str, steps: list[Step], tools: ToolRegistry) -> LLMRequest:
    instruction = _as_read(instruction)
    context: dict[str, Any] = {
        "instruction": instruction,
        "task": task,
        "steps": [step_view(s) for s in steps],
        "tools": tools.describe(),
    }
    parts = [f"Task: {task}", _section("Tools", context["tools"])]
    if steps:
        parts.append(_section("Steps so far", context["steps"]))
    parts.append(f"Instruction: {instruction}")
    parts.append(f"Reply with {PROPOSE_SHAPE}")
    return _request("propose", PROPOSER, parts, context)


def repair_request(request: LLMRequest, answer: str, problem: str) -> LLMRequest:
    """The same request, with the unusable answer sent back and what was wrong with it."""
    messages = [
        *request.messages,
        {"role": "assistant", "content": answer},
        {
            "role": "user",
            "content": f"That answer could not be used: {problem}\n"
            "Reply again with ONE corrected JSON object of the shape asked for, and nothing else.",
        },
    ]
    context = {**request.context, "repair": {"answer": answer, "problem": problem}}
    return LLMRequest(purpose=request.purpose, messages=messages, context=context, answer_schema=request.answer_schema)


def step_view(step: Step) -> dict[str, Any]:
    """A step as the model sees it: what ran, with what, and how it went."""
    return {
        "number": step.number,
        "tool": step.tool,
        "params": _jsonable(step.params),
        "reason": step.reason,
        "risk": step.risk.label,
        "status": step.status,
        "result": _jsonable(step.result),
        "error": step.error,
        **({"did": step.did} if step.did else {}),
    }


def _brief(step: dict[str, Any]) -> dict[str, Any]:
    """A step as the classifier needs it: number, tool, values, status (and error): short for small models."""
    brief: dict[str, Any] = {k: step[k] for k in ("number", "tool", "params", "status") if k in step}
    if step.get("error"):
        brief["error"] = step["error"]
    return brief


def _request(purpose: Purpose, system: str, parts: list[str], context: dict[str, Any]) -> LLMRequest:
    messages = [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]
    return LLMRequest(purpose=purpose, messages=messages, context=context)


def _as_read(text: str) -> str:
    """What a person wrote, as far as a model reads it: the first :data:`READ_LIMIT` characters."""
    return text[:READ_LIMIT]


def _section(title: str, value: Any) -> str:
    """A titled block of JSON: one list item per line, so the model reads it like a table."""
    items = value if isinstance(value, list) else [value]
    lines = [json.dumps(item, ensure_ascii=False, default=str) for item in items]
    clipped = [line if len(line) <= _ITEM_LIMIT else line[:_ITEM_LIMIT] + " … (cut)" for line in lines]
    return f"{title}:\n" + "\n".join(clipped)


def _jsonable(value: Any) -> Any:
    try:
        return json.loads(json.dumps(value, default=str))
    except (TypeError, ValueError):
        return str(value)
