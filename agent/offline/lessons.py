"""Lessons in the offline planner: corrected values and added steps from earlier corrections.

A lesson about a tool and target the draft plan uses sets the corrected values (``use``)
where the task names none or names the very value that was corrected (``instead_of``); a
value the task names that nobody corrected stands. A change of what a step acts on with nothing
else to tell it by ("restart checkout instead of payments": no target left) was a choice for that
task, not a rule, and is not applied. It puts the step it asked for (``add_steps``) before the
step it belongs to, on the same target. Feedback given in this run comes after and wins.
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


def apply_lessons(drafts: list[Draft], lessons: list[JSON], box: Toolbox, task: str) -> list[Draft]:
    """The drafts with what ``lessons`` teach applied (oldest lesson first, so the newest wins)."""
    out = list(drafts)
    for lesson in reversed(lessons):  # given best first; a later (newer, better) one is applied last
        said = str(lesson.get("said", ""))
        use_all: dict[str, Any] = lesson.get("use") or {}
        targeted = bool(lesson.get("target")) or not any(isinstance(v, str) for v in use_all.values())
        for d in [d for d in out if targeted and _about(lesson, d)]:
            named = extract_params(d.tool, d.clause, task=task, defaults=False)
            was: dict[str, Any] = lesson.get("instead_of") or {}
            use = {k: v for k, v in use_all.items() if d.tool.param(k) and (k not in named or named[k] == was.get(k))}
            changes = {k: v for k, v in use.items() if d.params.get(k) != v}
            if changes:
                d.params.update(changes)
                listed = ", ".join(f"{k}={v}" for k, v in changes.items())
                d.note += f" Used {listed} as an earlier correction said: “{said[:120]}”."
        for added in lesson.get("add_steps") or []:
            tool = box.by_name.get(str(added.get("tool")))
            if tool is None or any(d.tool.name == tool.name for d in out):
                continue
            for i, d in enumerate(out):
                before = d.tool.name == added.get("before")
                if not (before or d.tool.name == added.get("after")) or not _about(lesson, d):
                    continue
                params = {p.name: d.params[p.name] for p in tool.params if p.name in d.params}
                step = Draft(tool, params, said, "lesson", note=" (An earlier correction asked for this step.)")
                out.insert(i if before else i + 1, step)
                break
    return out
