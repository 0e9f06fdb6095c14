"""Lessons in PostgreSQL, with its own full-text search (a generated ``tsvector`` and a GIN index).

Like the SQLite store: a new lesson retires the lessons in force with its key, in the
transaction that adds it; ``find`` matches any of the text's words, best ``ts_rank`` first.
"""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection

from agent.lessons import search_words
from agent.models import Lesson
from storage.postgres.base import PoolUser

_ACTIVE = "forgotten_at IS NULL AND replaced_by IS NULL"
_COLUMNS = "data, forgotten_by, forgotten_at, replaced_by"


async def add_lesson(conn: AsyncConnection[Any], lesson: Lesson) -> None:
    """Store ``lesson`` and retire the ones it replaces (inside the caller's transaction)."""
    await conn.execute(
        f"UPDATE lessons SET replaced_by = %s WHERE key = %s AND {_ACTIVE} AND id <> %s",
        [lesson.id, lesson.key, lesson.id],
    )
    await conn.execute(
        "INSERT INTO lessons (id, scope, key, created_at, data, words) VALUES (%s, %s, %s, %s, %s, %s)"
        " ON CONFLICT (id) DO NOTHING",
        [lesson.id, lesson.scope, lesson.key, lesson.created_at, lesson.model_dump_json(), lesson.words],
    )


def _lesson(row: tuple[Any, ...]) -> Lesson:
    data, forgotten_by, forgotten_at, replaced_by = row
    return Lesson.model_validate_json(str(data)).model_copy(
        update={"forgotten_by": forgotten_by, "forgotten_at": forgotten_at, "replaced_by": replaced_by}
    )


class Lessons(PoolUser):
    """The lesson side of :class:`storage.postgres.PgStore`."""

    async def lessons(self, scope: str | None = None, *, active: bool = True, limit: int = 100) -> list[Lesson]:
        where = [_ACTIVE] if active else []
        args: list[Any] = []
        if scope is not None:
            where.append("scope = %s")
            args.append(scope)
        sql = f"SELECT {_COLUMNS} FROM lessons" + (f" WHERE {' AND '.join(where)}" if where else "")
        found = await self.fetch_all(sql + " ORDER BY created_at DESC, id LIMIT %s", [*args, limit])
        return [_lesson(r) for r in found]

    async def find_lessons(self, scope: str, text: str, limit: int = 20) -> list[Lesson]:
        words = search_words(text)
        if not words:
            return []
        # Each word as a prefix-free lexeme of the english configuration, any of them matching.
        found = await self.fetch_all(
            f"WITH q AS (SELECT to_tsquery('english', %s) AS query)"
            f" SELECT {_COLUMNS} FROM lessons, q WHERE search @@ q.query AND scope = %s AND {_ACTIVE}"
            " ORDER BY ts_rank(search, q.query) DESC, created_at DESC LIMIT %s",
            [" | ".join(f"'{w}'" for w in words), scope, limit],
        )
        return [_lesson(r) for r in found]

    async def get_lesson(self, lesson_id: str) -> Lesson | None:
        row = await self.fetch_one(f"SELECT {_COLUMNS} FROM lessons WHERE id = %s", [lesson_id])
        return None if row is None else _lesson(row)

    async def forget_lesson(self, lesson_id: str, by: str, at: float) -> Lesson | None:
        row = await self.fetch_one(
            f"UPDATE lessons SET forgotten_by = %s, forgotten_at = %s WHERE id = %s AND {_ACTIVE} RETURNING {_COLUMNS}",
            [by, at, lesson_id],
        )
        return None if row is None else _lesson(row)
