"""Lessons in Feishu: the lines a card shows for the lessons that shaped a plan, and the ``lessons`` list;
each lesson with a Forget button that goes through :meth:`~agent.usecases.UseCases.forget_lesson`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent.lessons import using
from agent.models import Lesson, LessonUse
from feishu import messages
from feishu.elements import Card, Element, button, buttons, card, md, note
from feishu.wording import Lang, escape, prose, say, who

SHOWN = 20


def forget_value(lesson_id: str, run_id: str = "", review_id: str = "") -> dict[str, Any]:
    """A Forget button's value: the lesson, and the run and review whose card shows it (none in the list)."""
    return {"action": "forget_lesson", "review": review_id, "run": run_id, "lesson": lesson_id}


def used_lines(uses: Sequence[LessonUse], lang: Lang, run_id: str, review_id: str = "") -> list[Element]:
    """``💡 Using what @alice said …`` with Forget for each lesson that shaped the plan
    (``Forgotten by @bob``, with no button, once forgotten)."""
    out: list[Element] = []
    for use in uses[:SHOWN]:
        line = prose(using(use), 700)
        if use.forgotten_by is not None:
            out.append(note(f"~~💡 {line}~~ · {say('forgotten_by', lang, who=who(use.forgotten_by))}"))
            continue
        out += [md(f"💡 {line}"), buttons(button(say("forget", lang), forget_value(use.id, run_id, review_id)))]
    return out


def lessons_card(lessons: Sequence[Lesson], lang: Lang) -> Card:
    """``lessons`` after the bot's mention: the lessons in force here, each with Forget."""
    if not lessons:
        return card("Tandem", [md(messages.NO_LESSONS)])
    body: list[Element] = []
    for lesson in lessons[:SHOWN]:
        said = escape(lesson.text[:300])
        body.append(md(f"• {escape(lesson.line)}\n“{said}” · {who(lesson.by)} · `{lesson.id}`"))
        body.append(buttons(button(say("forget", lang), forget_value(lesson.id))))
    if len(lessons) > SHOWN:
        body.append(note(f"… {len(lessons) - SHOWN} more"))
    body.append(note(messages.LESSONS_FOOTER))
    return card(say("lessons", lang, n=len(lessons)), body)
