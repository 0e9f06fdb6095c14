"""Lessons from corrections: a correction is noted when it is applied and becomes a lesson when its result lands.

The one place a correction is applied (:func:`agent.machine.decisions._on_correction`) notes it
in ``RunState.learning``; the transition that carries its result (new values for a step, a new
plan, a new text) turns the note into an :class:`~agent.models.AddLesson` effect, which the
runtime writes in the same transaction as that transition. A correction that cannot be
applied (its revision is refused) is dropped with its note, so nothing it did not change is learned.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent.models import (
    AddedStep,
    AddLesson,
    Decided,
    Effect,
    Learning,
    Lesson,
    LessonIntent,
    PlannedStep,
    Review,
    RunState,
    Step,
    target_of,
)
from agent.policy import rule_scope


def note(s: RunState, event: Decided, review: Review, intent: LessonIntent, text: str) -> None:
    """Remember the correction being applied until its result lands."""
    s.learning = Learning(
        id=event.nonce or review.id, anchor=review.anchor, intent=intent, text=text, by=event.by, at=event.at
    )


def _lesson(s: RunState, learning: Learning, **fields: Any) -> list[Effect]:
    lesson = Lesson(
        id=learning.id[:12],
        run_id=s.id,
        scope=rule_scope(s) or "",
        anchor=learning.anchor,
        intent=learning.intent,
        text=learning.text,
        by=learning.by,
        created_at=learning.at,
        **fields,
    )
    return [AddLesson(lesson=lesson)]


def _target(params: dict[str, Any], changed: set[str]) -> dict[str, Any]:
    """What the step acts on: its unchanged target values (``{"service": "payments"}``, see ``target_of``)."""
    return {k: v for k, v in target_of(params).items() if k not in changed}


def revised(s: RunState, step: Step, params: dict[str, Any]) -> list[Effect]:
    """A step's new values landed: what changed is the lesson."""
    learning, s.learning = s.learning, None
    if learning is None:
        return []
    changed = {k for k, v in params.items() if step.params.get(k) != v}
    return _lesson(
        s,
        learning,
        tool=step.tool,
        target=_target(params, changed),
        before={k: step.params.get(k) for k in sorted(changed)},
        after={k: params[k] for k in sorted(changed)},
    )


def replanned(s: RunState, old: Sequence[PlannedStep], new: Sequence[PlannedStep]) -> list[Effect]:
    """A new plan landed after a correction: the first tool whose values changed, and the steps it added."""
    learning, s.learning = s.learning, None
    if learning is None:
        return []
    fields: dict[str, Any] = {}
    was = {p.tool: p.params for p in old}
    for p in new:
        if p.tool in was:
            changed = {k for k, v in p.params.items() if was[p.tool].get(k) != v}
            if changed:
                fields = {
                    "tool": p.tool,
                    "target": _target(p.params, changed),
                    "before": {k: was[p.tool].get(k) for k in sorted(changed)},
                    "after": {k: p.params[k] for k in sorted(changed)},
                }
                break
    tools = [p.tool for p in new]
    added = [
        AddedStep(
            tool=p.tool,
            before=tools[i + 1] if i + 1 < len(tools) else None,
            after=tools[i - 1] if i + 1 == len(tools) and i > 0 else None,
        )
        for i, p in enumerate(new)
        if p.tool not in was
    ]
    if added and not fields:  # "always check the logs before a restart": about the tool, whatever its target
        fields = {"tool": added[0].before or added[0].after}
    return _lesson(s, learning, added=added, **fields)


def said(s: RunState) -> list[Effect]:
    """A correction with no values to compare (a note on the result): its words are the lesson."""
    learning, s.learning = s.learning, None
    return [] if learning is None else _lesson(s, learning)


def dropped(s: RunState) -> None:
    """The correction could not be applied: nothing is learned from it."""
    s.learning = None
