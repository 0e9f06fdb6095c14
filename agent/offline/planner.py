"""The ``plan`` and ``revise`` answers: steps for a task (after feedback), new values for one step."""

from __future__ import annotations

import json
from collections.abc import Hashable
from dataclasses import dataclass

from agent.offline.asked import asked_value
from agent.offline.drafts import Draft, draft_steps, put_first
from agent.offline.feedback import FeedbackEdit, apply_feedback
from agent.offline.lessons import apply_lessons
from agent.offline.params import extract_params, missing_params
from agent.offline.scope import can_do_line, outside
from agent.offline.text import is_chinese
from agent.offline.tools_match import Toolbox, tool_view
from agent.offline.vocabulary import INSTEAD_OF, JSON, reading_once, split_clauses, value_at

# --- planning ------------------------------------------------------------------------


def _step_json(draft: Draft, zh: bool = False) -> JSON:
    return {"tool": draft.tool.name, "params": draft.params, "reason": draft.reason(zh)}


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

    kept: tuple[tuple[str, str], ...]
    """Each part the plan keeps, in order: its tool and the words it comes from (its step's reason). A tool
    may come more than once ("read the logs first, before restarting" and the task's "check errors after")."""
    dropped: frozenset[str]
    """Tools the feedback took back and did not bring back."""

    def missing(self, tools: list[str]) -> list[tuple[str, str]]:
        """The parts a plan with these tools leaves out. Each part takes a step of its tool, the first after
        the step the part before it took, else any left: with one check for two, the one out of place misses."""
        free = list(range(len(tools)))
        left: list[tuple[str, str]] = []
        last = -1
        for tool, why in self.kept:
            mine = [i for i in free if tools[i] == tool]
            taken = next((i for i in mine if i > last), mine[0] if mine else None)
            if taken is None:
                left.append((tool, why))
                continue
            free.remove(taken)
            last = max(last, taken)
        return left

    def problem(self, tools: list[str]) -> str | None:
        """What a plan with these tools, in order, gets wrong about the task; None when it keeps it."""
        missing = [f"{tool} ({why.rstrip('.')})" for tool, why in self.missing(tools)]
        unwanted = sorted(set(tools) & self.dropped - {tool for tool, _ in self.kept})
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
    kept = tuple((str(step["tool"]), str(step["reason"])) for step in answer["steps"])
    return PlanParts(kept=kept, dropped=frozenset(edit.dropped))


def plan_answer(ctx: JSON) -> JSON:
    return _plan(ctx)[0]


def _plan(ctx: JSON) -> tuple[JSON, FeedbackEdit]:
    with reading_once():
        return _planned(ctx)


def _planned(ctx: JSON) -> tuple[JSON, FeedbackEdit]:
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
            listed = ", ".join(f"{k}={v}" for k, v in changes.items())
            d.note, d.note_zh = f" Changed {listed} as the feedback asked.", f"已按反馈改为 {listed}。"
    kept = [d for d in drafts if d.tool.name not in edit.dropped and (not edit.only or d.tool.name in edit.only)]
    kept = put_first(kept, edit.first, edit.ahead)  # "check the logs first": to the front, the rest in order
    first: dict[tuple[str, bool, Hashable], Draft] = {}  # equal drafts (same tool, equal params) count once
    for d in kept:
        first.setdefault(_identity(d), d)
    unique = list(first.values())
    done = [s for s in ctx.get("completed", []) if isinstance(s, dict) and s.get("status") == "done"]
    remaining = _not_done(unique, done) or unique
    ready = [d for d in remaining if not missing_params(d.tool, d.params)]
    steps = [_step_json(d, is_chinese(task)) for d in ready][: int(ctx.get("max_steps", 10))]
    if feedback and not edit.understood and steps:
        steps[0]["reason"] += (
            f"（看不出“{feedback[-1]}”要修改什么；请说明服务或步骤。）"
            if is_chinese(task)
            else f" (Could not tell what to change from “{feedback[-1]}”; name the service or step.)"
        )
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


def _identity(draft: Draft) -> tuple[str, bool, Hashable]:
    """Equal for two drafts exactly when they have the same tool and equal parameters (a step put ahead of
    another by feedback is not the same part as the task's own step after it)."""
    try:
        return draft.tool.name, draft.ahead, frozenset(draft.params.items())
    except TypeError:  # a value that is a list or dict
        return draft.tool.name, draft.ahead, json.dumps(draft.params, sort_keys=True, default=str)


def _not_done(drafts: list[Draft], done: list[JSON]) -> list[Draft]:
    """The drafts no step that ran already did; each step that ran accounts for one draft."""
    left = list(done)
    remaining = []
    for d in drafts:
        match = next((i for i, s in enumerate(left) if _same(d, s)), None)
        if match is None:
            remaining.append(d)
        else:
            left.pop(match)
    return remaining


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
        unknown = asked_value(tool, text, old)
        if unknown is not None:  # passed on as asked: checking it against the tool says what exists
            return {"params": {**old, **unknown}, "reason": "Used the value named in the feedback."}
        return {"params": old, "reason": "No new value found in the feedback; parameters unchanged."}
    listed = ", ".join(f"{k}={v}" for k, v in changed.items())
    return {"params": {**old, **changed}, "reason": f"Changed {listed} as asked."}
