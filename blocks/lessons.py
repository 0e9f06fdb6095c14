"""Lessons in Slack: the lines a plan review shows for the lessons it used, and ``/tandem lessons``;
each lesson with a Forget button."""

from __future__ import annotations

import json
from collections.abc import Sequence

from agent.lessons import using
from agent.models import Lesson, LessonUse
from blocks import ids
from blocks.text import Block, Blocks, button, clip, context, escape, mention, section, when

SHOWN = 20


def forget_value(lesson_id: str, run_id: str | None = None) -> str:
    return json.dumps({"lesson": lesson_id, "run": run_id} if run_id else {"lesson": lesson_id})


def _with_forget(text: str, lesson_id: str, run_id: str | None) -> Block:
    block = section(text)
    block["accessory"] = button("Forget", ids.FORGET_LESSON, forget_value(lesson_id, run_id)).to_dict()
    return block


def applied_lessons(uses: Sequence[LessonUse], run_id: str, limit: int = SHOWN) -> Blocks:
    """``💡 Using what @alice said on Nov 28 …`` for each lesson that shaped the plan, each with Forget
    (``Forgotten by @bob``, with no button, once forgotten)."""
    more = [context(f"… and {len(uses) - limit} more lessons (`/tandem lessons`)")] if len(uses) > limit else []
    return [*(_applied(u, run_id) for u in uses[:limit]), *more]


def _applied(use: LessonUse, run_id: str) -> Block:
    text = "💡 " + clip(using(use), 700).text
    if use.forgotten_by is None:
        return _with_forget(text, use.id, run_id)
    return context(f"~{text}~ · Forgotten by {mention(use.forgotten_by)}")


def lessons_blocks(lessons: Sequence[Lesson]) -> Blocks:
    if not lessons:
        return [section("*Lessons in this channel*\n_None yet: each correction of a plan or a step becomes one._")]
    blocks: Blocks = [section(f"*Lessons in this channel* · {len(lessons)}")]
    for lesson in lessons[:SHOWN]:
        line = escape(lesson.line)
        said = clip(lesson.text, 300).text
        text = f"{line}\n_“{said}”_ · {mention(lesson.by)} · {when(lesson.created_at)} · `{lesson.id}`"
        blocks.append(_with_forget(text, lesson.id, None))
    if len(lessons) > SHOWN:
        blocks.append(context(f"… and {len(lessons) - SHOWN} more"))
    blocks.append(
        context("New plans in this channel start from these. A later correction of the same thing replaces one.")
    )
    return blocks
