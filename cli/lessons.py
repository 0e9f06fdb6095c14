"""``tandem lessons``: what corrections taught later plans, and ``tandem lessons forget ID``."""

from __future__ import annotations

import argparse
import json
import sys
from typing import assert_never

from agent.lessons import day
from agent.models import Lesson
from agent.usecases import LessonForgotten, NotApplied, Refused, UseCases
from cli.names import person, place
from cli.render import plain


def lesson_json(lesson: Lesson) -> dict[str, object]:
    data = lesson.model_dump(mode="json", exclude={"forgotten_by", "forgotten_at", "replaced_by"})
    data["line"] = lesson.line
    return data


def lesson_line(lesson: Lesson) -> str:
    where = f"  in {place(lesson.scope)}" if lesson.scope else "  in the terminal"
    said = f"(said: “{lesson.text[:120]}”)"
    return f"{lesson.id}  {day(lesson.created_at)}  @{person(lesson.by)}{where}\n    {plain(lesson.line)}  {said}"


async def lessons_command(args: argparse.Namespace, usecases: UseCases) -> int:
    """List the lessons in force (every place's: the terminal sees all), or forget one."""
    if args.action is None:
        found = (await usecases.lesson_list(None)).lessons
        if args.json:
            print(json.dumps([lesson_json(x) for x in found], indent=2, ensure_ascii=False))
        elif not found:
            print("No lessons yet: each correction a person makes to a plan or a step becomes one.")
        else:
            print("\n".join(lesson_line(x) for x in found))
        return 0
    if not args.lesson_id:
        print("error: tandem lessons forget needs the lesson's id (see: tandem lessons)", file=sys.stderr)
        return 2
    outcome = await usecases.forget_lesson(args.lesson_id, args.user, None)
    match outcome:
        case LessonForgotten(lesson=lesson):
            if args.json:
                print(json.dumps({"forgotten": lesson.id, "by": lesson.forgotten_by, "at": lesson.forgotten_at}))
            else:
                print(f"Forgot lesson {lesson.id} ({plain(lesson.line)}); the next plans start without it.")
            return 0
        case Refused(refusal=refusal):
            print(f"error: {refusal.describe()}", file=sys.stderr)
        case NotApplied(message=message):
            print(f"error: {message}", file=sys.stderr)
        case _:
            assert_never(outcome)
    return 1
