"""The ``plan`` and ``revise`` answers: steps for a task (after feedback), new values for one step."""

from __future__ import annotations

import json
import re
from collections.abc import Hashable
from dataclasses import dataclass

from agent.offline.drafts import Draft, draft_steps
from agent.offline.feedback import FeedbackEdit, apply_feedback
from agent.offline.lessons import apply_lessons
from agent.offline.params import extract_params, missing_params
from agent.offline.scope import can_do_line, outside
from agent.offline.tools_match import Param, Toolbox, tool_view
from agent.offline.vocabulary import INSTEAD_OF, JSON, split_clauses, value_at

# --- planning ------------------------------------------------------------------------


def _step_json(draft: Draft) -> JSON:
    return {"tool": draft.tool.name, "params": draft.params, "reason": draft.reason()}


def _fallback(box: Toolbox, task: str, why: str) -> JSON | None:
    """When nothing matched: check the named entity, else list what there is, else the first read tool."""
    memory: dict[str, str] = {p: v for _, p, v in box.entities_in(task)}
    reads = [t for t in box.tools if t.risk == "read"]
    preferred = sorted(reads, key=lambda t: (-t.concepts.get("check" if memory else "list", 0.0), t.index))
    for t in preferred:
        params = {p.name: memory[p.name] for p in t.params if p.name in memory}
        if not missing_params(t, params):
            return {"tool": t.name, "params": params, "reason": why}
    return None


@dataclass(frozen=True)
class PlanParts:
    """What a replan must keep and leave out, as the offline planner reads the task and its feedback."""

    kept: dict[str, str]
    """Each tool the plan keeps, with the words it comes from (its step's reason)."""
    dropped: frozenset[str]
    """Tools the feedback took back and did not bring back."""

    def problem(self, tools: list[str]) -> str | None:
        """What a plan with these tools, in order, gets wrong about the task; None when it keeps it."""
        missing = [f"{tool} ({why.rstrip('.')})" for tool, why in self.kept.items() if tool not in tools]
        unwanted = sorted(set(tools) & self.dropped - set(self.kept))
        said = []
        if missing:
            said.append(
                "the plan leaves out " + "; ".join(missing) + ", which nobody took back. Keep every part of the "
                "task and of the feedback that was not taken back"
            )
        if unwanted:
            said.append(
                "the plan still has " + ", ".join(unwanted) + ", which the feedback took back. Where feedback "
                "messages conflict, the latest wins"
            )
        return "; ".join(said) + "." if said else None


def plan_parts(ctx: JSON) -> PlanParts | None:
    """The parts of the task a replan must keep and leave out; None when the offline planner matched nothing."""
    answer, edit = _plan(ctx)
    if "question" in answer:
        return None
    kept: dict[str, str] = {}
    for step in answer["steps"]:
        kept.setdefault(str(step["tool"]), str(step["reason"]))
    return PlanParts(kept=kept, dropped=frozenset(edit.dropped))


def plan_answer(ctx: JSON) -> JSON:
    return _plan(ctx)[0]


def _plan(ctx: JSON) -> tuple[JSON, FeedbackEdit]:
    box = Toolbox(list(ctx.get("tools", [])))
    task = str(ctx.get("task", ""))
    feedback = [str(f) for f in ctx.get("feedback", []) if str(f).strip()]
    edit = apply_feedback(task, feedback, box, list(ctx.get("rejected", [])))
    clauses = list(edit.prepended)
    for clause in split_clauses(edit.task):
        tool = box.best(clause)
        clauses += edit.replaced.get(tool.name, []) if tool else []
        clauses.append((clause, "task"))
    drafts = draft_steps([*clauses, *edit.added], box, task, memory={})
    drafts = apply_lessons(drafts, list(ctx.get("lessons", [])), box, task)
    for d in drafts:
        changes = {
            k: v for k, v in edit.values.get(d.tool.name, {}).items() if d.tool.param(k) and d.params.get(k) != v
        }
        if changes:
            d.params.update(changes)
            d.note = " Changed " + ", ".join(f"{k}={v}" for k, v in changes.items()) + " as the feedback asked."
    kept = [d for d in drafts if d.tool.name not in edit.dropped and (not edit.only or d.tool.name in edit.only)]
    if edit.first:  # "check the logs first": that step moves to the front, the rest keep their order
        kept.sort(key=lambda d: edit.first.index(d.tool.name) if d.tool.name in edit.first else len(edit.first))
    first: dict[tuple[str, Hashable], Draft] = {}  # equal drafts (same tool, equal params) count once
    for d in kept:
        first.setdefault(_identity(d), d)
    unique = list(first.values())
    done = [s for s in ctx.get("completed", []) if isinstance(s, dict) and s.get("status") == "done"]
    remaining = [d for d in unique if not any(_same(d, s) for s in done)] or unique
    ready = [d for d in remaining if not missing_params(d.tool, d.params)]
    steps = [_step_json(d) for d in ready][: int(ctx.get("max_steps", 10))]
    if feedback and not edit.understood and steps:
        steps[0]["reason"] += f" (Could not tell what to change from “{feedback[-1]}”; name the service or step.)"
    if not steps and not feedback and outside(task, box):  # "order pizza": no tool does any of it
        return {"steps": [], "unable": ""}, edit
    if not steps:
        why = _why_nothing(drafts, remaining, edit)
        fallback = _fallback(box, edit.task, why)
        steps = [fallback] if fallback else []
        # Nothing matched: say so, with a question a person can answer, rather than a confident guess.
        question = (
            f"I could not match “{task[:200]}” to a tool. {can_do_line(box)} "
            "What should I do, and on which target? For example: restart payments and check errors after."
        )
        return {"steps": steps, "confidence": 0.3, "question": question}, edit
    return {"steps": steps, "confidence": 0.8}, edit


def _why_nothing(drafts: list[Draft], remaining: list[Draft], edit: FeedbackEdit) -> str:
    unclear = [d for d in remaining if missing_params(d.tool, d.params)]
    if unclear:
        d = unclear[0]
        missing = ", ".join(missing_params(d.tool, d.params))
        return f"Could not tell the {missing} for {d.tool.name}; looking around first."
    if drafts:
        left_out = ", ".join(sorted({d.tool.name for d in drafts} & edit.dropped)) or "the other steps"
        return f"Left out {left_out} as the feedback asked; nothing else was asked, so looking around first."
    return "Nothing in the task matched a tool; looking around first."


def _identity(draft: Draft) -> tuple[str, Hashable]:
    """Equal for two drafts exactly when they have the same tool and equal parameters."""
    try:
        return draft.tool.name, frozenset(draft.params.items())
    except TypeError:  # a value that is a list or dict
        return draft.tool.name, json.dumps(draft.params, sort_keys=True, default=str)


def _same(draft: Draft, done: JSON) -> bool:
    params = done.get("params") or {}
    return bool(done.get("tool") == draft.tool.name and all(params.get(k) == v for k, v in draft.params.items()))


# --- revising one step --------------------------------------------------------------


def revise_answer(ctx: JSON) -> JSON:
    tool = tool_view(0, ctx.get("tool") or {})
    step = ctx.get("step") or {}
    old: JSON = dict(step.get("params") or {})
    text = " ".join(str(t) for t in (ctx.get("feedback"), ctx.get("suggested_fix")) if t)
    found: JSON = {}
    for piece in split_clauses(text) or [text]:
        positive = INSTEAD_OF.split(piece, maxsplit=1)[0]
        found.update(extract_params(tool, positive, defaults=False))
    for p in tool.params:  # an enum value named next to the old one: the new one wins
        if p.enum and p.name in found and found[p.name] == old.get(p.name):
            others = [v for v in p.enum if v != old.get(p.name) and value_at(text, v) >= 0]
            if others:
                found[p.name] = others[0]
    changed = {k: v for k, v in found.items() if old.get(k) != v}
    if not changed:
        unknown = _unknown_value(text, tool.params, old)
        if unknown is not None:  # passed on as asked: checking it against the tool says what exists
            return {"params": {**old, **unknown}, "reason": "Used the value named in the feedback."}
        return {"params": old, "reason": "No new value found in the feedback; parameters unchanged."}
    listed = ", ".join(f"{k}={v}" for k, v in changed.items())
    return {"params": {**old, **changed}, "reason": f"Changed {listed} as asked."}


_NAMED_VALUE = re.compile(
    r"(?:\b(?:use|should be|switch to|instead)\s+|换成|改成|改为|应该用|应该是|用)\s*([A-Za-z][\w.-]*)", re.I
)
_PARAM_NAMES = {"service": ("service", "服务"), "level": ("level", "级别"), "metric": ("metric", "指标")}


def _unknown_value(text: str, params: tuple[Param, ...], old: JSON) -> JSON | None:
    """A word the feedback asks for ("换成 orders 服务") that the step's enum parameter (the one the text
    names, or its only one) does not have."""
    enums = [p for p in params if p.enum]
    lowered = text.lower()
    named = [p for p in enums if any(w in lowered for w in _PARAM_NAMES.get(p.name, (p.name,)))]
    found = _NAMED_VALUE.search(text)
    target = named[0] if len(named) == 1 else enums[0] if len(enums) == 1 else None
    if target is None or found is None:
        return None
    word = found.group(1)
    if word.lower() in {v.lower() for v in target.enum} or word == old.get(target.name):
        return None
    return {target.name: word}
