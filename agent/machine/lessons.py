"""Lessons from corrections: a correction is noted when it is applied and becomes lessons when its result lands.

The one place a correction is applied (:func:`agent.machine.decisions._on_correction`) notes it
in ``RunState.learning``; the transition that carries its result (new values for a step, a new
plan, a new text) turns the note into :class:`~agent.models.AddLesson` effects, one per thing it
changed (each value, each step added, removed or moved, a presentation wish), which the runtime
writes in the same transaction as that transition. A correction that cannot be applied (its
revision is refused), or whose result changed nothing, teaches nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent.models import (
    AddLesson,
    Decided,
    Effect,
    Learning,
    Lesson,
    LessonIntent,
    Notify,
    PlannedStep,
    Review,
    RunState,
    Step,
    StepPlace,
    mention,
    says,
    target_of,
)
from agent.policy import rule_scope


def note(s: RunState, event: Decided, review: Review, intent: LessonIntent, text: str) -> None:
    """Remember the correction being applied until its result lands."""
    s.learning = Learning(
        id=event.nonce or review.id, anchor=review.anchor, intent=intent, text=text, by=event.by, at=event.at
    )


def _lessons(s: RunState, learning: Learning, changes: Sequence[dict[str, Any]]) -> list[Effect]:
    """One lesson per change; the first keeps the correction's id, the others number on from it."""
    base = learning.id[:12]
    return [
        AddLesson(
            lesson=Lesson(
                id=base if n == 0 else f"{base[:10]}{n:02d}",
                run_id=s.id,
                scope=rule_scope(s) or "",
                anchor=learning.anchor,
                intent=learning.intent,
                text=learning.text,
                by=learning.by,
                created_at=learning.at,
                **fields,
            )
        )
        for n, fields in enumerate(changes)
    ]


def _values(task: str, tool: str, was: dict[str, Any], now: dict[str, Any]) -> list[dict[str, Any]]:
    """One change per parameter given a new value; the step's unchanged text values say what it acts on."""
    changed = sorted(k for k, v in now.items() if was.get(k) != v)
    target = {k: v for k, v in target_of(now).items() if k not in changed}
    return [
        {
            "tool": tool,
            "target": target,
            "before": {k: was.get(k)},
            "after": {k: now[k]},
            "named": [k] if k in was and says(task, was[k]) else [],
        }
        for k in changed
    ]


def revised(s: RunState, step: Step, params: dict[str, Any]) -> list[Effect]:
    """A step's new values landed: each value changed is a lesson."""
    learning, s.learning = s.learning, None
    if learning is None:
        return []
    return _lessons(s, learning, _values(s.task, step.tool, step.params, params))


def _place(tool: str, tools: Sequence[str], i: int) -> StepPlace:
    """``tool`` at ``i`` of ``tools``: before the next step, or after the one before it when it is last."""
    if i + 1 < len(tools):
        return StepPlace(tool=tool, before=tools[i + 1])
    return StepPlace(tool=tool, after=tools[i - 1] if i > 0 else None)


def _match(p: PlannedStep, old: Sequence[PlannedStep]) -> PlannedStep | None:
    """The step of the old plan ``p`` stands for: same tool, the most values in common."""
    same = [o for o in old if o.tool == p.tool]
    return max(same, key=lambda o: sum(o.params.get(k) == v for k, v in p.params.items()), default=None)


def _moves(old: Sequence[str], new: Sequence[str]) -> list[StepPlace]:
    """Steps put before a step they used to come after: ``read_logs`` before ``restart_service``."""
    common = [t for t in dict.fromkeys(new) if t in old]
    first = {t: old.index(t) for t in common}
    moved = []
    for i, tool in enumerate(common):
        passed = next((t for t in common[i + 1 :] if first[t] < first[tool]), None)
        if passed is not None:
            moved.append(StepPlace(tool=tool, before=passed))
    return moved


def replanned(s: RunState, old: Sequence[PlannedStep], new: Sequence[PlannedStep]) -> list[Effect]:
    """A new plan landed after a correction: each value it changed, each step it added, left out or moved."""
    learning, s.learning = s.learning, None
    if learning is None:
        return []
    changes: list[dict[str, Any]] = []
    for p in new:
        was = _match(p, old)
        if was is not None:
            changes += _values(s.task, p.tool, was.params, p.params)
    ran = {x.tool for x in [*s.history, *s.plan] if x.status != "pending"}
    olds, news = [p.tool for p in old], [p.tool for p in new]
    places = [("added", _place(t, news, i)) for i, t in enumerate(news) if t not in olds]
    places += [("removed", _place(t, olds, i)) for i, t in enumerate(olds) if t not in news and t not in ran]
    places += [("moved", m) for m in _moves(olds, news)]
    # "always check the logs before a restart": about the step it goes next to, whatever its target
    changes += [{"tool": place.next_to, what: [place]} for what, place in places]
    return _lessons(s, learning, changes)


def said(s: RunState) -> list[Effect]:
    """A correction with no values to compare (a wish about the result): its words are the lesson."""
    learning, s.learning = s.learning, None
    return [] if learning is None else _lessons(s, learning, [{}])


def dropped(s: RunState) -> None:
    """The correction could not be applied: nothing is learned from it."""
    s.learning = None


def forgotten(state: RunState, lesson_id: str, by: str, at: float) -> tuple[RunState, list[Effect]]:
    """A lesson this run's plan used was forgotten: the run shows who forgot it, and its thread is told."""
    s = RunState.model_validate(state.model_dump())
    uses = [u for u in s.lessons_applied if u.id == lesson_id and u.forgotten_at is None]
    for use in uses:
        use.forgotten_by, use.forgotten_at = by, at
    if not uses:
        return s, []
    line = uses[0].line
    text = f"🧹 {mention(by)} forgot a lesson: {line}. Later plans start without it; this plan stays as it is."
    return s, [Notify(text=text)]
