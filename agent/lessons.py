"""Which lessons a new plan is given, and which of them shaped it.

The store finds the candidates by text relevance (SQLite FTS5, PostgreSQL full-text search)
among the lessons in force of the run's scope; :func:`pick` keeps those that can change a plan
(a value, a step's place: a presentation wish shapes no plan), drops those older than the
policy's ``[lessons] max_age``, weighs the rest by their rank and by age (halving every
``half_life``), prefers lessons about something the task names, and keeps the best ``limit``.

After planning, :func:`shaped` keeps the lessons the plan reflects and a plan made without
lessons would not have: only those are credited (``lessons_applied``) and shown.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from agent.config import LessonsRule
from agent.models import Lesson, LessonUse, mention, moment

PlanLike = Sequence[tuple[str, dict[str, Any]]]  # (tool, params) of each step, in order

_WORD = re.compile(r"\w+", re.UNICODE)
_STOP = frozenset("a an and the of to in on for at by with then after before it its is be this that please".split())


def search_words(text: str, limit: int = 24) -> list[str]:
    """The words of ``text`` worth searching for (lowercased, deduplicated, in order)."""
    seen: dict[str, None] = {}
    for w in _WORD.findall(text.lower().replace("_", " ")):
        if w not in _STOP and len(w) > 1:
            seen.setdefault(w)
    return list(seen)[:limit]


def pick(found: list[Lesson], task: str, now: float, rule: LessonsRule) -> list[Lesson]:
    """The lessons to give the planner, best first (``found`` is the store's answer, best match first)."""
    said = set(search_words(task))
    scored: list[tuple[float, int, Lesson]] = []
    for rank, lesson in enumerate(x for x in found if x.kind in ("values", "steps")):
        age = max(0.0, now - lesson.created_at)
        if age > rule.max_age:
            continue
        named = any(str(v).lower() in said for v in lesson.target.values())
        weight = 0.5 ** (age / rule.half_life) / (1 + rank / 4) * (2.0 if named else 1.0)
        scored.append((weight, rank, lesson))
    scored.sort(key=lambda x: (-x[0], x[1]))
    return [lesson for _, _, lesson in scored[: rule.limit]]


def day(at: float) -> str:
    """``Nov 28``."""
    return datetime.fromtimestamp(at, UTC).strftime("%b %d").replace(" 0", " ")


def use_of(lesson: Lesson) -> LessonUse:
    return LessonUse(id=lesson.id, line=lesson.line, by=lesson.by, at=lesson.created_at)


def using(use: LessonUse) -> str:
    """``Using what @alice said on Nov 28 (14:02): use replicas=4 in `scale_service` for payments``."""
    return f"Using what {mention(use.by)} said on {day(use.at)} ({moment(use.at)}): {use.line}"


def reflected(lesson: Lesson, plan: PlanLike) -> bool:
    """Whether ``plan`` does what ``lesson`` teaches, on a step of the tool and target it is about."""
    tools = [tool for tool, _ in plan]
    match lesson.kind:
        case "values":
            want = {**lesson.target, **lesson.after}
            return any(t == lesson.tool and all(p.get(k) == v for k, v in want.items()) for t, p in plan)
        case "steps":
            return all(_placed(tools, p.tool, p.before, p.after) for p in [*lesson.added, *lesson.moved]) and all(
                p.tool not in tools and (p.next_to is None or p.next_to in tools) for p in lesson.removed
            )
        case "presentation" | "words":
            return False


def _placed(tools: list[str], tool: str, before: str | None, after: str | None) -> bool:
    if tool not in tools:
        return False
    if before is not None:
        return before in tools and tools.index(tool) < tools.index(before)
    if after is not None:
        return after in tools and tools.index(tool) > tools.index(after)
    return True


def shaped(lessons: Sequence[Lesson], plan: PlanLike, without: PlanLike | None) -> list[Lesson]:
    """The lessons that changed ``plan``: it reflects them, and ``without`` (the plan made without any
    lesson, when known) does not."""
    return [x for x in lessons if reflected(x, plan) and not (without is not None and reflected(x, without))]
