"""Lessons in the offline planner: corrected values, and steps added or moved by earlier corrections.

A lesson applies only to a draft step of the tool and target it is about. It sets the corrected
values (``use``) where the task names none: the task's own words win ("error logs" stays
``level=error`` whatever a lesson said), except where the person corrected the very value the
task names, though their task had said it too (``overrides_task_words``: "scale payments to 2
replicas", "use 4 replicas"). A change of what a step acts on with nothing else to tell it by
("restart checkout instead of payments": no target left) was a choice for that task, not a rule,
and is not applied. It puts a step it asked for (``add_steps``) next to the step it belongs to, on
the same target, and moves a step it moved (``move_steps``) the same way. A step it left out
(``remove_steps``) is not left out here: every draft is something the task asked for. Feedback
given in this run comes after and wins.
"""

from __future__ import annotations

from typing import Any

from agent.offline.drafts import Draft
from agent.offline.params import extract_params
from agent.offline.tools_match import Toolbox
from agent.offline.vocabulary import JSON


def _about(lesson: JSON, draft: Draft) -> bool:
    target: dict[str, Any] = lesson.get("target") or {}
    return lesson.get("tool") == draft.tool.name and all(draft.params.get(k) == v for k, v in target.items())


def _values(lesson: JSON, drafts: list[Draft], task: str) -> None:
    said = str(lesson.get("said", ""))
    use_all: dict[str, Any] = lesson.get("use") or {}
    if not (lesson.get("target") or not any(isinstance(v, str) for v in use_all.values())):
        return
    was: dict[str, Any] = lesson.get("instead_of") or {}
    over: list[str] = lesson.get("overrides_task_words") or []
    for d in [d for d in drafts if _about(lesson, d)]:
        named = extract_params(d.tool, d.clause, task=task, defaults=False)
        use = {
            k: v
            for k, v in use_all.items()
            if d.tool.param(k) and (k not in named or (k in over and named[k] == was.get(k)))
        }
        changes = {k: v for k, v in use.items() if d.params.get(k) != v}
        if changes:
            d.params.update(changes)
            listed = ", ".join(f"{k}={v}" for k, v in changes.items())
            d.add_note(
                f"Used {listed} as an earlier correction said: “{said[:120]}”.",
                f"按之前的纠正使用 {listed}：“{said[:120]}”。",
            )


def _next_to(lesson: JSON, drafts: list[Draft], place: JSON) -> int | None:
    """Where a step of ``place`` goes: the index of the step it belongs before (or after + 1)."""
    for i, d in enumerate(drafts):
        before = d.tool.name == place.get("before")
        if (before or d.tool.name == place.get("after")) and _about(lesson, d):
            return i if before else i + 1
    return None


def _steps(lesson: JSON, drafts: list[Draft], box: Toolbox) -> None:
    said = str(lesson.get("said", ""))
    for added in lesson.get("add_steps") or []:
        tool = box.by_name.get(str(added.get("tool")))
        at = _next_to(lesson, drafts, added)
        if tool is None or at is None or any(d.tool.name == tool.name for d in drafts):
            continue
        near = drafts[at if at < len(drafts) else at - 1]
        params = {p.name: near.params[p.name] for p in tool.params if p.name in near.params}
        added_step = Draft(tool, params, said, "lesson")
        added_step.add_note("(An earlier correction asked for this step.)", "（之前的纠正要求加上这一步。）")
        drafts.insert(at, added_step)
    for moved in lesson.get("move_steps") or []:
        here = next((i for i, d in enumerate(drafts) if d.tool.name == moved.get("tool")), None)
        at = _next_to(lesson, drafts, moved)
        if here is None or at is None or (here < at if moved.get("before") else here >= at):
            continue  # not there, or already where the lesson wants it
        step = drafts.pop(here)
        step.add_note(f"Moved as an earlier correction said: “{said[:120]}”.", f"按之前的纠正移动：“{said[:120]}”。")
        drafts.insert(at if here > at else at - 1, step)


def apply_lessons(drafts: list[Draft], lessons: list[JSON], box: Toolbox, task: str) -> list[Draft]:
    """The drafts with what ``lessons`` teach applied (oldest lesson first, so the newest wins)."""
    out = list(drafts)
    for lesson in reversed(lessons):  # given best first; a later (newer, better) one is applied last
        _values(lesson, out, task)
        _steps(lesson, out, box)
    return out
