"""Which lessons a new plan is given: relevant to the task, in its scope, and weighted by age.

The store finds the candidates by text relevance (SQLite FTS5, PostgreSQL full-text search)
among the lessons in force of the run's scope; :func:`pick` drops those older than the
policy's ``[lessons] max_age``, weighs the rest by their rank and by age (halving every
``half_life``), prefers lessons about something the task names, and keeps the best ``limit``.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from agent.config import LessonsRule
from agent.models import Lesson, LessonUse, mention, moment

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
    for rank, lesson in enumerate(found):
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
