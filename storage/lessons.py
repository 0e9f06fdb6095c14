"""Lessons in SQLite: one row each, and an FTS5 table over their words for text relevance.

A new lesson replaces (``replaced_by``) the lessons in force with the same key
(:attr:`agent.models.Lesson.key`: scope, tool, target and parameters), in the
transaction that adds it, so a later correction of the same thing is never stacked.
"""

from __future__ import annotations

from agent.lessons import search_words
from agent.models import Lesson
from storage.database import Database

_ACTIVE = "forgotten_at IS NULL AND replaced_by IS NULL"


def add(db: Database, lesson: Lesson) -> None:
    """Store ``lesson`` and retire the ones it replaces (call inside the caller's transaction)."""
    db.execute(
        f"UPDATE lessons SET replaced_by = ? WHERE key = ? AND {_ACTIVE} AND id != ?",
        [lesson.id, lesson.key, lesson.id],
    )
    cur = db.execute(
        "INSERT OR IGNORE INTO lessons (id, scope, key, created_at, data) VALUES (?, ?, ?, ?, ?)",
        [lesson.id, lesson.scope, lesson.key, lesson.created_at, lesson.model_dump_json()],
    )
    if cur.rowcount == 1:
        db.execute("INSERT INTO lessons_fts (id, words) VALUES (?, ?)", [lesson.id, lesson.words])


def _lesson(row: tuple[object, ...]) -> Lesson:
    data, forgotten_by, forgotten_at, replaced_by = row
    lesson = Lesson.model_validate_json(str(data))
    return lesson.model_copy(
        update={
            "forgotten_by": forgotten_by,
            "forgotten_at": None if forgotten_at is None else float(str(forgotten_at)),
            "replaced_by": replaced_by,
        }
    )


_COLUMNS = "data, forgotten_by, forgotten_at, replaced_by"


def listed(db: Database, scope: str | None, *, active: bool, limit: int) -> list[Lesson]:
    where = [_ACTIVE] if active else []
    args: list[object] = []
    if scope is not None:
        where.append("scope = ?")
        args.append(scope)
    sql = f"SELECT {_COLUMNS} FROM lessons" + (f" WHERE {' AND '.join(where)}" if where else "")
    rows = db.execute(sql + " ORDER BY created_at DESC, id LIMIT ?", [*args, limit]).fetchall()
    return [_lesson(r) for r in rows]


def find(db: Database, scope: str, text: str, limit: int) -> list[Lesson]:
    words = search_words(text)
    if not words:
        return []
    query = " OR ".join(f'"{w}"' for w in words)
    rows = db.execute(
        "SELECT l.data, l.forgotten_by, l.forgotten_at, l.replaced_by FROM lessons_fts f JOIN lessons l ON l.id = f.id"
        " WHERE lessons_fts MATCH ? AND l.scope = ? AND l.forgotten_at IS NULL AND l.replaced_by IS NULL"
        " ORDER BY bm25(lessons_fts), l.created_at DESC LIMIT ?",
        [query, scope, limit],
    ).fetchall()
    return [_lesson(r) for r in rows]


def get(db: Database, lesson_id: str) -> Lesson | None:
    row = db.execute(f"SELECT {_COLUMNS} FROM lessons WHERE id = ?", [lesson_id]).fetchone()
    return None if row is None else _lesson(row)


def forget(db: Database, lesson_id: str, by: str, at: float) -> Lesson | None:
    """Stop using a lesson in force; None when there is none by that id."""
    found = get(db, lesson_id)
    if found is None or not found.active:
        return None
    db.execute(f"UPDATE lessons SET forgotten_by = ?, forgotten_at = ? WHERE id = ? AND {_ACTIVE}", [by, at, lesson_id])
    return found.model_copy(update={"forgotten_by": by, "forgotten_at": at})
